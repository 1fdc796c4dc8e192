import { describe, expect, it } from 'vitest';
import { signEvent } from '../../server/payments/signature.js';
import { addDeveloper, API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

const SECRET = 'whsec_order_0123456789';
const DAY_S = 24 * 60 * 60;
const t = useTestServer({ paymentWebhookSecret: SECRET });

function deliver(event: object) {
  const payload = JSON.stringify(event);
  const signature = signEvent(payload, SECRET, Math.floor(t.clock.now().getTime() / 1000));
  return t.call('POST', `${API}/subscriptions/webhook`, {
    key: null,
    rawBody: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
  });
}

/** A seeded shuffle, so a failure can be replayed. */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * What a processor (Stripe's wire format) reports over one subscription's life: it starts on
 * starter, is upgraded to pro, renews once, is set to cancel, and ends. Periods lie ahead of the
 * server's clock, so only these events move the subscription.
 */
function lifeOf(subscriber: { developerId: string; appUuid: string }, sessionId: string, tag: string) {
  const now = Math.floor(t.clock.now().getTime() / 1000);
  const metadata = { svc_developer_id: subscriber.developerId, svc_app_uuid: subscriber.appUuid, svc_address: '' };
  const id = `sub_${tag}`;
  const p1 = { start: now, end: now + 30 * DAY_S };
  const p2 = { start: p1.end, end: p1.end + 30 * DAY_S };
  const subscription = (price: string, period: { start: number; end: number }, extra: object = {}) => ({
    id,
    object: 'subscription',
    customer: `cus_${tag}`,
    status: 'active',
    cancel_at_period_end: false,
    items: { data: [{ price: { id: price }, current_period_start: period.start, current_period_end: period.end }] },
    metadata,
    ...extra,
  });
  const invoice = (n: number, reason: string, price: string, amount: number, period: { start: number; end: number }) => ({
    id: `in_${tag}_${n}`,
    object: 'invoice',
    billing_reason: reason,
    amount_paid: amount,
    parent: { subscription_details: { subscription: id, metadata } },
    lines: { data: [{ period, pricing: { price_details: { price } } }] },
  });
  const event = (n: number, type: string, created: number, object: object) => ({ id: `evt_${tag}_${n}`, type, created, data: { object } });
  return [
    event(1, 'customer.subscription.created', now, subscription('price_svc_starter_month', p1)),
    event(2, 'invoice.paid', now + 1, invoice(1, 'subscription_create', 'price_svc_starter_month', 900, p1)),
    event(3, 'checkout.session.completed', now + 2, { id: sessionId, object: 'checkout.session', mode: 'subscription', subscription: id }),
    event(4, 'customer.subscription.updated', now + 100, subscription('price_svc_pro_month', p1)),
    event(5, 'invoice.paid', now + 101, invoice(2, 'subscription_update', 'price_svc_pro_month', 1500, p1)),
    event(6, 'invoice.paid', p2.start, invoice(3, 'subscription_cycle', 'price_svc_pro_month', 2900, p2)),
    event(7, 'customer.subscription.updated', p2.start + 1, subscription('price_svc_pro_month', p2)),
    event(8, 'customer.subscription.updated', p2.start + 10, subscription('price_svc_pro_month', p2, { cancel_at_period_end: true })),
    event(9, 'customer.subscription.deleted', p2.end, subscription('price_svc_pro_month', p2, { status: 'canceled', cancel_at_period_end: true })),
    event(10, 'customer.subscription.trial_will_end', p2.end, subscription('price_svc_pro_month', p2)),
  ];
}

async function subscriberWithSession(tag: string) {
  const subscriber = await addDeveloper(t, `dev-${tag}`);
  const session = await t.call('POST', `${API}/subscriptions/checkout-session`, {
    key: subscriber.key,
    body: { tier: 'starter', interval: 'month' },
  });
  expectStatus(session, 201);
  return { ...subscriber, sessionId: session.body.id as string };
}

/** Everything a subscriber can observe, without ids that differ between subscribers. */
async function observe(subscriber: { key: string; appUuid: string }) {
  const as = { key: subscriber.key };
  const status = (await t.call('GET', `${API}/subscriptions/status`, as)).body;
  const balance = (await t.call('GET', `${API}/credits/balance`, as)).body.credits;
  const billing = (await t.call('GET', `${API}/developer/billing`, as)).body.data.map(
    (line: { kind: string; description: string; amount_usd: number; credits: number; status: string }) =>
      `${line.kind} ${line.description} $${line.amount_usd} ${line.credits} ${line.status}`,
  );
  const record = await t.server.store.subscriptions.current({ appUuid: subscriber.appUuid, livemode: true }, '');
  return { status, balance, billing: billing.sort(), record: { ...record, id: undefined, appUuid: undefined, developerId: undefined, customerId: undefined, createdAt: undefined, updatedAt: undefined } };
}

describe('subscription webhooks in any order', () => {
  it('one ordered delivery ends canceled, with each period’s credits once', async () => {
    const a = await subscriberWithSession('ordered');
    for (const event of lifeOf(a, a.sessionId, 'ordered')) expectStatus(await deliver(event), 200);
    const seen = await observe(a);
    expect(seen.status).toMatchObject({ status: 'canceled', tier: 'pro' });
    expect(seen.balance).toBe(1000 + 4000);
    expect(seen.billing).toEqual([
      'subscription pro (month) plan, change $15 0 paid',
      'subscription pro (month) plan, renewal $29 4000 paid',
      'subscription svc starter (month) plan $9 1000 paid',
    ]);
  });

  for (const seed of [1, 7, 42, 1234, 99991]) {
    it(`every event twice, shuffled (seed ${seed}): the same final state as one ordered delivery`, async () => {
      const ordered = await subscriberWithSession(`o${seed}`);
      for (const event of lifeOf(ordered, ordered.sessionId, `o${seed}`)) await deliver(event);

      const shuffled = await subscriberWithSession(`s${seed}`);
      const events = lifeOf(shuffled, shuffled.sessionId, `s${seed}`);
      for (const event of shuffle([...events, ...events], seed)) expectStatus(await deliver(event), 200);

      expect(await observe(shuffled)).toEqual(await observe(ordered));
      expect(await t.server.store.credits.check()).toEqual([]);
    });
  }

  it('an event for a subscription nobody knows, without our metadata, is acknowledged and changes nothing', async () => {
    const response = await deliver({
      id: 'evt_foreign',
      type: 'customer.subscription.updated',
      created: 1,
      data: { object: { id: 'sub_foreign', status: 'active', items: { data: [{ price: { id: 'price_svc_pro_month' }, current_period_start: 1, current_period_end: 2 }] } } },
    });
    expectStatus(response, 200);
    expect(await t.server.store.subscriptions.get('sub_foreign')).toBeNull();
  });

  it('a known event type whose object is malformed is a 400 and is not recorded as seen', async () => {
    const malformed = { id: 'evt_bad_sub', type: 'customer.subscription.updated', created: 1, data: { object: { id: 'sub_x' } } };
    expectApiError(await deliver(malformed), 400, { code: 'invalid_event' });
    expect(await t.server.store.checkout.eventSeen('evt_bad_sub')).toBe(false);
  });
});

describe('reports for an app that is not there', () => {
  it('are acknowledged and change nothing (an app deleted since, or unknown)', async () => {
    const gone = await subscriberWithSession('gone');
    expectStatus(await t.call('DELETE', `${API}/developer/apps/${gone.appUuid}`, { key: gone.key }), 200);
    const events = lifeOf(gone, gone.sessionId, 'gone');
    const unknown = lifeOf({ developerId: gone.developerId, appUuid: '00000000-0000-4000-8000-000000000000' }, 'cs_unknown', 'unknown');
    for (const event of [...events, ...unknown]) expectStatus(await deliver(event), 200);
    expect(await t.server.store.subscriptions.get('sub_gone')).toBeNull();
    expect(await t.server.store.subscriptions.get('sub_unknown')).toBeNull();
    expect(await t.server.store.credits.check()).toEqual([]);
  });
});
