import { describe, expect, it } from 'vitest';
import { signEvent } from '../../server/payments/signature.js';
import { addDeveloper, API, appPath, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

const SECRET = 'whsec_test_0123456789abcdef';
const t = useTestServer({ paymentWebhookSecret: SECRET });
const purchase = (body: Record<string, unknown>) => t.call('POST', `${API}/credits/purchase`, { body });
const balance = async () => (await t.call('GET', `${API}/credits/balance`)).body.credits;
const post = (url: string) => fetch(url, { method: 'POST', redirect: 'manual' });

function webhook(event: unknown, options: { secret?: string; at?: number; signature?: string | null } = {}) {
  const payload = JSON.stringify(event);
  const at = options.at ?? Math.floor(t.clock.now().getTime() / 1000);
  const signature = options.signature === undefined ? signEvent(payload, options.secret ?? SECRET, at) : options.signature;
  return t.call('POST', `${API}/subscriptions/webhook`, {
    key: null,
    rawBody: payload,
    headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
  });
}
const completed = (sessionId: string, eventId = `evt_${sessionId}`) => ({
  id: eventId,
  type: 'checkout.session.completed',
  data: { object: { id: sessionId, object: 'checkout.session' } },
});

describe('credits purchase through the sandbox processor', () => {
  it('opens a checkout session whose page pays it, crediting once and redirecting to success_url', async () => {
    const session = await purchase({ credits: 500, success_url: 'https://app.example/thanks', cancel_url: 'https://app.example/back' });
    expectStatus(session, 201);
    expect(session.body).toMatchObject({ object: 'checkout.session', status: 'open', credits: 500, amount_usd: 5 });
    const pageHtml = await (await fetch(session.body.url)).text();
    expect(pageHtml).toContain('$5.00');
    expect(await balance()).toBe(100);
    const paid = await post(`${session.body.url}/pay`);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://app.example/thanks');
    expect(await balance()).toBe(600);
    expect((await post(`${session.body.url}/pay`)).status).toBe(409);
    expect(await balance()).toBe(600);
    expect(await t.server.store.credits.check()).toEqual([]);
  });

  it('a cancelled session cannot be paid', async () => {
    const session = await purchase({ credits: 150, cancel_url: 'https://app.example/back' });
    expect(session.body.amount_usd).toBe(1.5);
    const cancelled = await post(`${session.body.url}/cancel`);
    expect(cancelled.headers.get('location')).toBe('https://app.example/back');
    expect((await post(`${session.body.url}/pay`)).status).toBe(409);
    expect(await balance()).toBe(100);
  });

  it.each([[99], [150.5], [0]])('refuses %s credits (not a pack, under the minimum or not whole)', async (credits) => {
    expectApiError(await purchase({ credits }), 400, { param: 'credits' });
  });

  it('an unknown session page is a 404', async () => {
    expect((await fetch(`${t.url}/sandbox/checkout/cs_${'0'.repeat(32)}`)).status).toBe(404);
  });
});

describe('developer apps fund', () => {
  it('credits the app once its checkout is paid', async () => {
    const app = await t.call('POST', `${API}/developer/apps`, { body: { name: 'funded' } });
    const session = await t.call('POST', appPath(app.body.app_uuid, 'fund'), { body: { credits: 1200 } });
    expect(session.body.amount_usd).toBe(10);
    await post(`${session.body.url}/pay`);
    expect((await t.call('GET', appPath(app.body.app_uuid))).body.balance_credits).toBe(1200);
  });

  it('another developer’s app is a 404', async () => {
    const other = await addDeveloper(t);
    expectApiError(await t.call('POST', appPath(other.appUuid, 'fund'), { body: { credits: 500 } }), 404);
  });
});

describe('developer billing', () => {
  it('lists the developer’s payments newest first, with their status', async () => {
    const first = await purchase({ credits: 500 });
    t.clock.advance(1000);
    const second = await purchase({ credits: 150 });
    await post(`${first.body.url}/pay`);
    const billing = await t.call('GET', `${API}/developer/billing`);
    expect(billing.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(billing.body.data.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      [second.body.id, 'pending'],
      [first.body.id, 'paid'],
    ]);
  });
});

describe('the webhook receiver', () => {
  it('grants on checkout.session.completed, once, however often the event arrives', async () => {
    const session = await purchase({ credits: 500 });
    expectStatus(await webhook(completed(session.body.id)), 200);
    expectStatus(await webhook(completed(session.body.id)), 200);
    expectStatus(await webhook(completed(session.body.id, 'evt_other_delivery')), 200);
    expect(await balance()).toBe(600);
  });

  it('refuses a bad, missing, malformed or stale signature with 400 and changes nothing', async () => {
    const session = await purchase({ credits: 500 });
    const event = completed(session.body.id);
    expectApiError(await webhook(event, { secret: 'whsec_wrong_0123456789' }), 400, { code: 'signature_invalid' });
    expectApiError(await webhook(event, { signature: null }), 400, { code: 'signature_missing' });
    expectApiError(await webhook(event, { signature: 'nonsense' }), 400, { code: 'signature_malformed' });
    expectApiError(await webhook(event, { at: Math.floor(t.clock.now().getTime() / 1000) - 301 }), 400, { code: 'signature_stale' });
    expect(await balance()).toBe(100);
  });

  it('ignores event types it does not handle, and events for unknown sessions, with 200', async () => {
    expectStatus(await webhook({ id: 'evt_x', type: 'customer.created', data: { object: {} } }), 200);
    expectStatus(await webhook(completed('cs_unknown')), 200);
    expect(await balance()).toBe(100);
  });
});
