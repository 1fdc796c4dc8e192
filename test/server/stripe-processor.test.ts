import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkConservation } from '../../server/services/conservation.js';
import { PLAN_PRICES, startFakeStripe } from '../fixtures/fake-stripe.js';
import { API, expectApiError, expectStatus, sandboxUser } from '../helpers/api.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';
import { onDatabase } from '../helpers/database.js';
import { onPostgres } from '../helpers/postgres.js';

const SECRET_KEY = 'sk_test_svc_0123456789';
const WEBHOOK_SECRET = 'whsec_svc_stripe_0123456789';

let t: TestServer;
let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: SECRET_KEY, now: nowSeconds });
});
afterAll(() => stripe.close());
beforeEach(async () => {
  stripe.requests.length = 0;
  t = await startTestServer({
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, SVC_STRIPE_API_URL: stripe.url, ...PLAN_PRICES },
  });
});
afterEach(() => t.close());

/** Delivers events as Stripe does, signed by the SDK's own test-header helper. */
async function deliver(events: object[], secret = WEBHOOK_SECRET) {
  const statuses: number[] = [];
  for (const event of events) {
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: nowSeconds() });
    const response = await t.call('POST', `${API}/subscriptions/webhook`, {
      key: null,
      rawBody: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    statuses.push(response.status);
  }
  return statuses;
}

/** A month on: Stripe renews the subscription, and its invoice and new state are delivered. */
async function renewedAtStripe(subscriptionId: string) {
  t.clock.advance(30 * 24 * 60 * 60 * 1000);
  await t.server.services.billingClock.idle();
  expect(await deliver(stripe.renew(subscriptionId))).toEqual([200, 200]);
}

const balance = async () => (await t.call('GET', `${API}/credits/balance`)).body.credits as number;
const lastRequest = (path: string) => [...stripe.requests].reverse().find((r) => r.path.startsWith(path));

async function subscribe(tier = 'starter') {
  const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier, interval: 'month' } });
  expectStatus(session, 201);
  expect(await deliver(stripe.pay(session.body.id))).toEqual([200, 200, 200]);
  const sub = await t.server.store.subscriptions.current({ appUuid: t.appUuid, livemode: true }, '');
  if (!sub) throw new Error('expected a subscription');
  return sub;
}

describe('the Stripe processor (against a fake Stripe API, through the stripe SDK)', () => {
  it('opens a Stripe Checkout for credits and grants them once Stripe reports the session paid', async () => {
    const session = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500, success_url: 'https://app.example/ok' } });
    expectStatus(session, 201);
    expect(session.body.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(session.body.id).toMatch(/^cs_test_/);
    const request = lastRequest('/v1/checkout/sessions');
    expect(request).toMatchObject({
      method: 'POST',
      authorization: `Bearer ${SECRET_KEY}`,
      params: {
        mode: 'payment',
        success_url: 'https://app.example/ok',
        line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '500', product_data: { name: '500 credits' } } }],
        metadata: { svc_kind: 'credit_pack', svc_app_uuid: t.appUuid },
      },
    });
    expect(request?.stripeVersion).toBeTruthy();

    const before = await balance();
    const events = stripe.pay(session.body.id);
    expect(await deliver([...events, ...events])).toEqual([200, 200]);
    expect(await balance()).toBe(before + 500);
    // The sandbox's pages are not Stripe's.
    expect((await fetch(`${t.url}/sandbox/checkout/cs_${'0'.repeat(32)}`)).status).toBe(404);
  });

  it('refuses events not signed with the webhook secret, changing nothing', async () => {
    const session = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
    const before = await balance();
    expect(await deliver(stripe.pay(session.body.id), 'whsec_someone_else')).toEqual([400]);
    expect(await balance()).toBe(before);
  });

  it('subscribes through Stripe Checkout: the plan’s price, our metadata on the subscription, credits from the invoice', async () => {
    const before = await balance();
    const sub = await subscribe('starter');
    expect(lastRequest('/v1/checkout/sessions')?.params).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH, quantity: '1' }],
      subscription_data: { metadata: { svc_app_uuid: t.appUuid, svc_address: '' } },
    });
    expect(sub).toMatchObject({ tier: 'starter', interval: 'month', status: 'active', customerId: expect.stringMatching(/^cus_/) });
    expect(await balance()).toBe(before + 1000);
    const billing = (await t.call('GET', `${API}/developer/billing`)).body.data;
    expect(billing[0]).toMatchObject({ kind: 'subscription', status: 'paid', amount_usd: 9 });
  });

  it('upgrades through the SDK with proration, cancels and renews, and opens the customer portal', async () => {
    const sub = await subscribe('starter');
    const upgraded = await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro' } });
    expectStatus(upgraded, 200);
    expect(upgraded.body).toMatchObject({ tier: 'pro', granted_credits: 3000 });
    const item = stripe.subscriptions.get(sub.id)?.items.data[0];
    expect(lastRequest(`/v1/subscriptions/${sub.id}`)?.params).toEqual({
      items: [{ id: item?.id, price: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'error_if_incomplete',
      expand: ['latest_invoice'],
    });
    // Stripe's own report of the same change changes nothing more.
    expect(await deliver(stripe.updated(sub.id))).toEqual([200]);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', status: 'active' });

    const canceled = await t.call('POST', `${API}/subscriptions/cancel`);
    expect(canceled.body).toMatchObject({ cancel_at_period_end: true });
    expect(lastRequest(`/v1/subscriptions/${sub.id}`)?.params).toEqual({ cancel_at_period_end: 'true' });
    const renewed = await t.call('POST', `${API}/subscriptions/renew`);
    expect(renewed.body).toMatchObject({ cancel_at_period_end: false });
    expect(lastRequest(`/v1/subscriptions/${sub.id}`)?.params).toEqual({ cancel_at_period_end: 'false' });

    const portal = await t.call('POST', `${API}/subscriptions/customer-portal`, { body: { return_url: 'https://app.example/account' } });
    expectStatus(portal, 200);
    expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.com\//);
    expect(lastRequest('/v1/billing_portal/sessions')?.params).toEqual({ customer: sub.customerId, return_url: 'https://app.example/account' });
  });

  it('follows Stripe’s renewals and its end of a canceled subscription', async () => {
    const sub = await subscribe('pro');
    const before = await balance();
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(before + 4000);
    await t.call('POST', `${API}/subscriptions/cancel`);
    t.clock.advance(30 * 24 * 60 * 60 * 1000);
    await t.server.services.billingClock.idle();
    expect(await deliver(stripe.renew(sub.id))).toEqual([200]);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ status: 'canceled' });
    expect(await balance()).toBe(before + 4000);
    expect(await t.server.store.credits.check()).toEqual([]);
  });

  it('schedules a downgrade at Stripe for the period end; Stripe renews at the lower price', async () => {
    const sub = await subscribe('pro');
    const scheduled = await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } });
    expect(scheduled.body).toMatchObject({ tier: 'pro', scheduled_downgrade: { tier: 'starter' } });
    expect(stripe.requests.find((r) => r.path === '/v1/subscription_schedules')).toMatchObject({ method: 'POST', params: { from_subscription: sub.id } });
    const schedule = [...stripe.schedules.values()].find((s) => s.subscription === sub.id);
    expect(schedule).toMatchObject({
      status: 'active',
      end_behavior: 'release',
      phases: [
        { items: [{ price: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH, quantity: 1 }], end_date: Date.parse(sub.currentPeriodEnd) / 1000 },
        { items: [{ price: PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH, quantity: 1 }] },
      ],
    });
    // The period ends: the billing clock leaves it to Stripe, which renews by the schedule.
    t.clock.advance(30 * 24 * 60 * 60 * 1000);
    await t.server.services.billingClock.idle();
    const before = await balance();
    expect(await deliver(stripe.renew(sub.id))).toEqual([200, 200]);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'starter', scheduled_downgrade: null });
    expect(await balance()).toBe(before + 1000);
  });

  it('withdrawing the downgrade, or upgrading or cancelling, releases the schedule first', async () => {
    const sub = await subscribe('pro');
    await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } });
    expectStatus(await t.call('POST', `${API}/subscriptions/cancel-scheduled-downgrade`), 200);
    expect(stripe.subscriptions.get(sub.id)?.schedule).toBeNull();
    await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } });
    const canceled = await t.call('POST', `${API}/subscriptions/cancel`);
    expectStatus(canceled, 200);
    expect(canceled.body).toMatchObject({ cancel_at_period_end: true, scheduled_downgrade: null });
    expect(stripe.subscriptions.get(sub.id)).toMatchObject({ schedule: null, cancel_at_period_end: true });
    const ofThis = [...stripe.schedules.values()].filter((s) => s.subscription === sub.id);
    expect(ofThis.map((s) => s.status)).toEqual(['released', 'released']);
  });

  it('deleting the app cancels its subscription at Stripe first', async () => {
    const sub = await subscribe('pro');
    const deleted = await t.call('DELETE', `${API}/developer/apps/${t.appUuid}`, { body: { force: true } });
    expectStatus(deleted, 200);
    expect(lastRequest(`/v1/subscriptions/${sub.id}`)).toMatchObject({ method: 'DELETE' });
    expect(await t.server.store.subscriptions.get(sub.id)).toMatchObject({ status: 'canceled' });
  });

  it('an app whose subscription Stripe will not cancel stays, so the deletion can be retried', async () => {
    await subscribe('pro');
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'No such subscription.');
    expectApiError(await t.call('DELETE', `${API}/developer/apps/${t.appUuid}`, { body: { force: true } }), 502, { type: 'payment_processor_error' });
    expectStatus(await t.call('GET', `${API}/developer/apps/${t.appUuid}`), 200);
  });

  it('a Stripe error is a 502 that says what Stripe said, and changes nothing', async () => {
    stripe.failNext(402, 'card_error', 'card_declined', 'Your card was declined.');
    const refused = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
    expectApiError(refused, 502, { type: 'payment_processor_error' });
    expect(refused.body.error.message).toContain('Your card was declined.');
    expect(refused.body.error.message).not.toContain(SECRET_KEY);
    expect((await t.call('GET', `${API}/developer/billing`)).body.data).toEqual([]);
  });
});

describe('an upgrade through Stripe is granted only once Stripe has the money', () => {
  const billing = async () => (await t.call('GET', `${API}/developer/billing`)).body.data as { description: string; amount_usd: number; credits: number }[];
  const seen = async () => ({ status: (await t.call('GET', `${API}/subscriptions/status`)).body, balance: await balance(), billing: await billing() });
  const planChanges = (subscriptionId: string) =>
    stripe.requests.filter((r) => r.path === `/v1/subscriptions/${subscriptionId}` && r.method === 'POST' && r.params.items);

  it('a declined card: Stripe is asked to change nothing unless paid, and the 402 grants nothing and changes nothing', async () => {
    const sub = await subscribe('starter');
    stripe.declineCharges(sub.customerId ?? '');
    const before = await seen();
    const refused = await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro' } });
    expectApiError(refused, 402, { type: 'card_error', code: 'card_declined' });
    expect(refused.body.error.message).toContain('Your card was declined.');
    expect(planChanges(sub.id).map((r) => r.params.payment_behavior)).toEqual(['error_if_incomplete']);
    expect(stripe.subscriptions.get(sub.id)?.items.data[0]?.price.id).toBe(PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH);
    expect(await seen()).toEqual(before);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });

  it('a paid one grants once, with its charge in Billing, however often Stripe reports the invoice', async () => {
    const sub = await subscribe('starter');
    const upgraded = await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro' } });
    expect(upgraded.body).toMatchObject({ tier: 'pro', granted_credits: 3000 });
    const after = await seen();
    expect(after.billing[0]).toMatchObject({ description: 'pro (month) plan, upgrade', amount_usd: 20, credits: 3000 });
    const reports = [...stripe.latestInvoicePaid(sub.id), ...stripe.updated(sub.id)];
    expect(await deliver([...reports, ...reports])).toEqual([200, 200, 200, 200]);
    expect(await seen()).toEqual(after);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });

  it('five at once: Stripe changes the plan once, and one charge is granted once', async () => {
    const sub = await subscribe('starter');
    const answers = await Promise.all(Array.from({ length: 5 }, () => t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro' } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(planChanges(sub.id)).toHaveLength(1);
    const upgrades = (await billing()).filter((line) => line.description.endsWith('upgrade'));
    expect(upgrades).toEqual([expect.objectContaining({ amount_usd: 20, credits: 3000 })]);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });

  it('a declined upgrade keeps the downgrade planned at Stripe', async () => {
    const sub = await subscribe('pro');
    await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } });
    stripe.declineCharges(sub.customerId ?? '');
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 402, { code: 'card_declined' });
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', interval: 'month', scheduled_downgrade: { tier: 'starter' } });
    const schedule = [...stripe.schedules.values()].find((s) => s.subscription === sub.id && s.status === 'active');
    expect(schedule?.phases[1]).toMatchObject({ items: [{ price: PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH, quantity: 1 }] });
  });
});

describe('test mode beside Stripe', () => {
  it('a test key buys play money through the sandbox, never through Stripe', async () => {
    const session = await t.call('POST', `${API}/credits/purchase`, { key: t.testKey, body: { credits: 500 } });
    expectStatus(session, 201);
    expect(session.body).toMatchObject({ livemode: false, url: expect.stringContaining('/sandbox/checkout/') });
    expect(lastRequest('/v1/checkout/sessions')).toBeUndefined();
    const before = await balance();
    expect((await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(200);
    expect((await t.call('GET', `${API}/credits/balance`, { key: t.testKey })).body.credits).toBe(500);
    expect(await balance()).toBe(before);
  });

  it('the sandbox cannot pay a live Stripe session, by its page or by an event signed with its secret', async () => {
    const session = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
    expectStatus(session, 201);
    const before = await balance();
    const page = await fetch(`${t.url}/sandbox/checkout/${session.body.id}/pay`, { method: 'POST', redirect: 'manual' });
    expect(page.status).toBe(404);
    // An event for the live session signed with the sandbox's secret is acknowledged and changes nothing.
    const sandboxSecret = t.server.services.processors.sandbox.webhookSecret;
    const forged = { id: 'evt_forged_1', object: 'event', type: 'checkout.session.completed', created: nowSeconds(), data: { object: { id: session.body.id, object: 'checkout.session', mode: 'payment', payment_status: 'paid' } } };
    expect(await deliver([forged], sandboxSecret)).toEqual([200]);
    expect(await balance()).toBe(before);
    // Stripe's own report pays it.
    expect(await deliver(stripe.pay(session.body.id))).toEqual([200]);
    expect(await balance()).toBe(before + 500);
  });
});

describe('a plan whose Stripe price is not configured', () => {
  it('is not on sale: left out of the plans, refused by checkout, upgrade, downgrade and renewal before Stripe is asked, and named at start', async () => {
    const { STRIPE_PRICE_PRO_YEAR: _unset, ...configured } = PLAN_PRICES;
    const lines: string[] = [];
    await t.close();
    t = await startTestServer({
      env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, SVC_STRIPE_API_URL: stripe.url, ...configured },
      log: (line) => lines.push(line),
    });
    expect(lines).toContain('payments: STRIPE_PRICE_PRO_YEAR is not set, so that plan is not on sale (Stripe needs its price id, price_…).');
    const plans = (await t.call('GET', `${API}/subscriptions/plans`)).body.data as { tier: string; interval: string; price_id: string }[];
    expect(plans.map(({ tier, interval, price_id }) => [tier, interval, price_id])).toEqual([
      ['starter', 'month', PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH],
      ['starter', 'year', PLAN_PRICES.STRIPE_PRICE_STARTER_YEAR],
      ['pro', 'month', PLAN_PRICES.STRIPE_PRICE_PRO_MONTH],
    ]);

    stripe.requests.length = 0;
    const refused = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'pro', interval: 'year' } });
    expectApiError(refused, 409, { code: 'plan_not_on_sale' });
    expect(refused.body.error.message).toBe(
      'The pro (year) plan is not on sale on this server (on sale: starter (month), starter (year), pro (month)); subscriptions plans lists those that are.',
    );
    expect(stripe.requests).toEqual([]);
    // Test mode is the sandbox's, which sells every plan.
    expect((await t.call('GET', `${API}/subscriptions/plans`, { key: t.testKey })).body.data).toHaveLength(4);
    expect(stripe.requests).toEqual([]);

    // On a plan that is on sale, the one that is not cannot be reached either way.
    await subscribe('starter');
    stripe.requests.length = 0;
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 409, { code: 'plan_not_on_sale' });
    expect(stripe.requests).toEqual([]);
    expectStatus(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro' } }), 200);
  });
});

/** Prices as the operator may configure them: some unset, some changed. */
type Prices = Partial<Record<keyof typeof PLAN_PRICES, string>>;

describe('a plan whose Stripe price is unset while subscriptions run on it', () => {
  const stripeEnv = (prices: Prices) => ({
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SVC_STRIPE_API_URL: stripe.url,
    ...prices,
  });
  let dir: string;
  let before: TestServer;
  // The same data before and after a restart: a SQLite file, or the PostgreSQL schema (whose first
  // server stays up, since closing it gives the schema back).
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-retired-price-'));
    await t.close();
    before = await startTestServer({ env: stripeEnv(PLAN_PRICES), ...(onPostgres ? {} : { dbPath: join(dir, 'svc.db') }) });
    t = before;
  });
  afterEach(async () => {
    await t.close();
    await before.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** The server started again with these prices configured. */
  async function restartWith(prices: Prices) {
    if (!onPostgres) await before.close();
    t = await joinTestServer(before, { env: stripeEnv(prices) });
  }
  /** The server started again with `variable` unset: the operator takes that plan off sale. */
  async function restartWithout(variable: keyof typeof PLAN_PRICES) {
    const { [variable]: _unset, ...configured } = PLAN_PRICES;
    await restartWith(configured);
  }

  /** A checkout for the pro plan, opened now and paid later. */
  async function openProCheckout(): Promise<string> {
    const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'pro', interval: 'month' } });
    expectStatus(session, 201);
    return session.body.id as string;
  }

  it('a checkout paid after its plan was taken off sale is the plan it sold: followed, granted, and renewed', async () => {
    const sessionId = await openProCheckout();
    expect(lastRequest('/v1/checkout/sessions')?.params).toMatchObject({
      subscription_data: { metadata: { svc_tier: 'pro', svc_interval: 'month', svc_price_id: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH } },
    });
    await restartWithout('STRIPE_PRICE_PRO_MONTH');
    const credits = await balance();
    expect(await deliver(stripe.pay(sessionId))).toEqual([200, 200, 200]);
    expect(await balance()).toBe(credits + 4000);
    const sub = await t.server.store.subscriptions.current({ appUuid: t.appUuid, livemode: true }, '');
    expect(sub).toMatchObject({ tier: 'pro', interval: 'month', status: 'active', priceId: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH });
    await renewedAtStripe(sub!.id);
    expect(await balance()).toBe(credits + 8000);
  });

  it('a checkout paid after its plan was repriced is the plan it sold, at the price it sold it at', async () => {
    const sessionId = await openProCheckout();
    await restartWith({ ...PLAN_PRICES, STRIPE_PRICE_PRO_MONTH: 'price_2ProMonthly' });
    const credits = await balance();
    expect(await deliver(stripe.pay(sessionId))).toEqual([200, 200, 200]);
    expect(await balance()).toBe(credits + 4000);
    expect(await t.server.store.subscriptions.current({ appUuid: t.appUuid, livemode: true }, '')).toMatchObject({
      tier: 'pro',
      priceId: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH,
    });
  });

  it('a test-mode checkout whose plan was repriced before it was paid is a 409 at the sandbox, not a 500', async () => {
    const user = await sandboxUser(t);
    const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { ...user.as, body: { tier: 'pro', interval: 'month' } });
    expectStatus(session, 201);
    await restartWith({ ...PLAN_PRICES, STRIPE_PRICE_PRO_MONTH: 'price_2ProMonthly' });
    const page = await fetch(`${t.url}/sandbox/checkout/${session.body.id}/pay`, { method: 'POST', redirect: 'manual' });
    expect(page.status).toBe(409);
    expect(await page.text()).toContain('no longer sold');
    expect(await t.server.store.subscriptions.current({ appUuid: t.appUuid, livemode: false }, user.address)).toBeNull();
  });

  it('a sold plan is taken only at the price it was sold at: a subscription Stripe bills at another is not ours', async () => {
    const sessionId = await openProCheckout();
    await restartWithout('STRIPE_PRICE_PRO_MONTH');
    const credits = await balance();
    // The checkout's line set at Stripe by hand to a price svc never had: the metadata names the pro plan all the same.
    const session = stripe.sessions.get(sessionId);
    if (!session) throw new Error('expected the session at Stripe');
    session.line_items = [{ price: 'price_someone_elses_1_dollar', quantity: '1' }];
    expect(await deliver(stripe.pay(sessionId))).toEqual([200, 200, 200]);
    expect(await balance()).toBe(credits);
    expect(await t.server.store.subscriptions.current({ appUuid: t.appUuid, livemode: true }, '')).toBeNull();
  });

  it('goes on for them: Stripe renews at the old price, and each period is followed and grants its credits', async () => {
    const sub = await subscribe('pro');
    await restartWithout('STRIPE_PRICE_PRO_MONTH');
    const credits = await balance();
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(credits + 4000);
    const renewed = await t.server.store.subscriptions.get(sub.id);
    expect(renewed).toMatchObject({ tier: 'pro', interval: 'month', status: 'active' });
    expect(renewed?.currentPeriodStart).not.toBe(sub.currentPeriodStart);
    expect((await t.call('GET', `${API}/developer/billing`)).body.data[0]).toMatchObject({ description: 'pro (month) plan, renewal', credits: 4000 });
    // Still off sale to anyone else.
    expectApiError(await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'pro', interval: 'month' } }), 409, { code: 'plan_not_on_sale' });
  });

  /** The downgrade Stripe has planned for the subscription: the price of its next phase, or null. */
  const plannedAtStripe = (subscriptionId: string) =>
    [...stripe.schedules.values()].find((s) => s.subscription === subscriptionId && s.status === 'active')?.phases[1]?.items[0]?.price ?? null;

  it('a downgrade planned to it stands after a declined upgrade: planned again at Stripe at the price it was planned with', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    await restartWithout('STRIPE_PRICE_STARTER_MONTH');
    stripe.declineCharges(sub.customerId ?? '');
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 402, { code: 'card_declined' });
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', scheduled_downgrade: { tier: 'starter', interval: 'month' } });
    expect(plannedAtStripe(sub.id)).toBe(PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH);
  });

  it('an upgrade that fails after Stripe let the planned downgrade go plans it again', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'No such price.', `POST /v1/subscriptions/${sub.id}`);
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 502);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', scheduled_downgrade: { tier: 'starter' } });
    expect(plannedAtStripe(sub.id)).toBe(PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH);
  });

  it('a subscription from before prices were recorded, its downgrade’s plan taken off sale, is taken at the one plan that can be billed', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    await onDatabase(t, ['UPDATE subscriptions SET price_id = NULL, scheduled_price_id = NULL', 'SELECT 1']);
    await restartWithout('STRIPE_PRICE_STARTER_MONTH');
    const credits = await balance();
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(credits + 1000);
    expect(await t.server.store.subscriptions.get(sub.id)).toMatchObject({ tier: 'starter', interval: 'month', priceId: PLAN_PRICES.STRIPE_PRICE_STARTER_MONTH });
  });

  it('an end at a price not ours is still followed, and that price is not taken for ours after it', async () => {
    const sub = await subscribe('pro');
    // Moved at Stripe by hand to a price svc never had, then ended there (as for an unpaid invoice).
    const atStripe = stripe.subscriptions.get(sub.id);
    const item = atStripe?.items.data[0];
    if (!atStripe || !item) throw new Error('expected the subscription at Stripe');
    item.price = { id: 'price_someone_elses_1_dollar' };
    atStripe.status = 'canceled';
    const credits = await balance();
    t.clock.advance(60 * 1000);
    expect(await deliver(stripe.updated(sub.id))).toEqual([200]);
    expect(await t.server.store.subscriptions.get(sub.id)).toMatchObject({ tier: 'pro', status: 'canceled', priceId: PLAN_PRICES.STRIPE_PRICE_PRO_MONTH });
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ status: 'canceled' });
    // An invoice at that price paid late (or reported out of order) grants nothing.
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(credits);
  });

  it('an upgrade Stripe made but whose answer was lost is answered as made: granted, the downgrade it supersedes gone', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'The answer was lost.', `POST /v1/subscriptions/${sub.id}`, { afterDoing: true });
    const upgraded = await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } });
    expectStatus(upgraded, 200);
    expect(upgraded.body).toMatchObject({ tier: 'pro', interval: 'year', scheduled_downgrade: null });
    expect(upgraded.body.granted_credits).toBeGreaterThan(0);
    expect(stripe.subscriptions.get(sub.id)?.items.data[0]?.price.id).toBe(PLAN_PRICES.STRIPE_PRICE_PRO_YEAR);
    expect(plannedAtStripe(sub.id)).toBeNull();
  });

  it('a declined upgrade whose downgrade cannot be planned again at Stripe is still a 402, and drops it rather than show it', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    stripe.declineCharges(sub.customerId ?? '');
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'Stripe is away.', 'POST /v1/subscription_schedules');
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 402, { code: 'card_declined' });
    expect(plannedAtStripe(sub.id)).toBeNull();
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', interval: 'month', scheduled_downgrade: null });
  });

  it('an upgrade that failed where Stripe cannot say whether it was made drops the downgrade it let go, rather than show it', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'No such price.', `POST /v1/subscriptions/${sub.id}`);
    // The look before the change passes; the one after it fails.
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'Stripe is away.', `GET /v1/subscriptions/${sub.id}`, { skip: 1 });
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 502);
    expect(plannedAtStripe(sub.id)).toBeNull();
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ tier: 'pro', interval: 'month', scheduled_downgrade: null });
  });

  it('a downgrade planned to it before stands: Stripe renews at its old price, and the lower plan is followed and granted', async () => {
    const sub = await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    await restartWithout('STRIPE_PRICE_STARTER_MONTH');
    const credits = await balance();
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(credits + 1000);
    expect(await t.server.store.subscriptions.get(sub.id)).toMatchObject({ tier: 'starter', interval: 'month', scheduledDowngrade: null });
  });

  it('a price that was never this subscription’s is not taken for its plan', async () => {
    const sub = await subscribe('pro');
    await restartWithout('STRIPE_PRICE_PRO_MONTH');
    const credits = await balance();
    // Moved at Stripe by hand to a price svc never had.
    const item = stripe.subscriptions.get(sub.id)?.items.data[0];
    if (!item) throw new Error('expected the subscription at Stripe');
    item.price = { id: 'price_someone_elses_1_dollar' };
    await renewedAtStripe(sub.id);
    expect(await balance()).toBe(credits);
    expect(await t.server.store.subscriptions.get(sub.id)).toMatchObject({ tier: 'pro', interval: 'month', currentPeriodStart: sub.currentPeriodStart });
  });

  it('an upgrade that fails otherwise than by a decline leaves the planned downgrade as Stripe may still have it', async () => {
    await subscribe('pro');
    expectStatus(await t.call('POST', `${API}/subscriptions/schedule-downgrade`, { body: { tier: 'starter' } }), 200);
    await restartWithout('STRIPE_PRICE_STARTER_MONTH');
    stripe.failNext(400, 'invalid_request_error', 'resource_missing', 'No such subscription item.');
    expectApiError(await t.call('POST', `${API}/subscriptions/upgrade`, { body: { tier: 'pro', interval: 'year' } }), 502);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ scheduled_downgrade: { tier: 'starter', interval: 'month' } });
  });
});

describe('processor configuration', () => {
  it('refuses to start with only one of the two Stripe settings', async () => {
    await expect(startTestServer({ env: { STRIPE_SECRET_KEY: SECRET_KEY } })).rejects.toThrow(/STRIPE_WEBHOOK_SECRET/);
  });
});
