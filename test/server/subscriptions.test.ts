import { describe, expect, it } from 'vitest';
import { API, expectApiError, expectStatus, sandboxUser, useTestServer } from '../helpers/api.js';
import { advance as advanceClock, subscriber as newSubscriber } from '../helpers/subscriber.js';

const DAY = 24 * 60 * 60 * 1000;
const t = useTestServer();

/** A new developer with an empty app: one subscriber per test. */
const subscriber = () => newSubscriber(t);
/** Moves the server's clock; the billing clock acts on its own, with no request coming in. */
const advance = (ms: number) => advanceClock(t, ms);

describe('subscriptions plans', () => {
  it('lists starter and pro, monthly and yearly, with price, price id, credits and features', async () => {
    const response = await t.call('GET', `${API}/subscriptions/plans`);
    expectStatus(response, 200);
    expect(response.body.data.map((p: { tier: string; interval: string }) => `${p.tier}/${p.interval}`)).toEqual([
      'starter/month',
      'starter/year',
      'pro/month',
      'pro/year',
    ]);
    expect(response.body.data[2]).toMatchObject({ price_usd: 29, price_id: 'price_svc_pro_month', monthly_credits: 4000 });
  });
});

describe('a subscription through the sandbox processor', () => {
  it('starts none, becomes active once the checkout is paid, and grants the period’s credits once', async () => {
    const s = await subscriber();
    expect(await s.status()).toMatchObject({ status: 'none', tier: null, cancel_at_period_end: false, scheduled_downgrade: null });
    const session = await s.subscribe('starter');
    expect(session).toMatchObject({ object: 'checkout.session', amount_usd: 9, credits: 1000 });
    expect(await s.status()).toMatchObject({
      status: 'active',
      tier: 'starter',
      interval: 'month',
      current_period_start: '2026-03-01T12:00:00.000Z',
      current_period_end: '2026-04-01T12:00:00.000Z',
    });
    expect(await s.balance()).toBe(1000);
    expect(await s.billing()).toEqual([expect.objectContaining({ kind: 'subscription', status: 'paid', description: 'svc starter (month) plan' })]);
  });

  it('refuses a second checkout while one runs, with 409 saying the current plan', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    const again = await s.call('POST', '/checkout-session', { tier: 'pro', interval: 'month' });
    expectApiError(again, 409, { type: 'conflict', code: 'already_subscribed' });
    expect(again.body.error.message).toContain('starter (month)');
  });

  it('asks for tier and interval or a known price_id', async () => {
    const s = await subscriber();
    expectApiError(await s.call('POST', '/checkout-session', { tier: 'pro' }), 400, { param: 'interval' });
    expectApiError(await s.call('POST', '/checkout-session', { price_id: 'price_nope' }), 400, { param: 'price_id' });
    expectApiError(await s.call('POST', '/checkout-session', { tier: 'gold', interval: 'month' }), 400, { param: 'tier' });
    expectStatus(await s.call('POST', '/checkout-session', { price_id: 'price_svc_pro_year' }), 201);
  });

  it('renews at the period end by the server’s clock, granting the next period and billing it', async () => {
    const s = await subscriber();
    await s.subscribe('pro');
    expect(await s.balance()).toBe(4000);
    await advance(31 * DAY);
    // No request came in: the clock ended the period and the processor reported the new one.
    const sub = await t.server.store.subscriptions.current({ appUuid: s.appUuid, livemode: true }, '');
    expect(sub).toMatchObject({ currentPeriodStart: '2026-04-01T12:00:00.000Z', currentPeriodEnd: '2026-05-01T12:00:00.000Z' });
    expect(await s.balance()).toBe(8000);
    expect((await s.billing()).map((line) => line.description)).toEqual(['pro (month) plan, renewal', 'svc pro (month) plan']);
    await advance(61 * DAY); // two more periods: May and June begin
    expect(await s.balance()).toBe(16000);
    expect(await t.server.store.credits.check()).toEqual([]);
  });
});

describe('upgrade', () => {
  it('is immediate and grants the new plan’s extra credits for the rest of the period', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    await advance(Math.round(31 * DAY * 0.75)); // a quarter of the period left
    const upgraded = await s.call('POST', '/upgrade', { tier: 'pro' });
    expectStatus(upgraded, 200);
    expect(upgraded.body).toMatchObject({ tier: 'pro', interval: 'month', status: 'active', granted_credits: 750 });
    expect(await s.balance()).toBe(1750);
    expect(await s.status()).toMatchObject({ tier: 'pro', current_period_end: '2026-04-01T12:00:00.000Z' });
  });

  it('to the same or a lower tier, or without a subscription, is a 409 saying the state', async () => {
    const none = await subscriber();
    const refused = await none.call('POST', '/upgrade', { tier: 'pro' });
    expectApiError(refused, 409, { code: 'no_active_subscription' });
    expect(refused.body.error.message).toContain('You have no subscription');

    const s = await subscriber();
    await s.subscribe('pro');
    const same = await s.call('POST', '/upgrade', { tier: 'pro' });
    expectApiError(same, 409, { code: 'not_an_upgrade' });
    expect(same.body.error.message).toContain('You are on pro (month)');
    expectApiError(await s.call('POST', '/upgrade', { tier: 'starter' }), 409, { code: 'not_an_upgrade' });
    expectApiError(await s.call('POST', '/upgrade', {}), 400, { param: 'tier' });
  });

  it('to another interval starts a new period now, granting the new period less what is left unused', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    await advance(Math.round(31 * DAY * 0.5));
    const upgraded = await s.call('POST', '/upgrade', { tier: 'pro', interval: 'year' });
    // 48,000 for the new year, less the unused half of starter's 1,000.
    expect(upgraded.body).toMatchObject({ tier: 'pro', interval: 'year', granted_credits: 47500 });
    expect(upgraded.body.current_period_start).toBe(t.clock.now().toISOString());
  });
});

describe('changing the interval within a tier', () => {
  it('yearly from monthly is an upgrade (a new yearly period now); monthly from yearly a scheduled downgrade', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    const upgraded = await s.call('POST', '/upgrade', { tier: 'starter', interval: 'year' });
    // The year's 12,000 credits, less the month's 1,000 not yet used.
    expect(upgraded.body).toMatchObject({ tier: 'starter', interval: 'year', granted_credits: 11000, current_period_end: '2027-03-01T12:00:00.000Z' });
    expectApiError(await s.call('POST', '/upgrade', { tier: 'starter', interval: 'month' }), 409, { code: 'not_an_upgrade' });
    const scheduled = await s.call('POST', '/schedule-downgrade', { tier: 'starter', interval: 'month' });
    expect(scheduled.body.scheduled_downgrade).toMatchObject({ tier: 'starter', interval: 'month', effective_at: '2027-03-01T12:00:00.000Z' });
  });
});

describe('scheduled downgrades', () => {
  it('take effect at the period end, by the clock, with the lower plan’s credits', async () => {
    const s = await subscriber();
    await s.subscribe('pro');
    const scheduled = await s.call('POST', '/schedule-downgrade', { tier: 'starter' });
    expectStatus(scheduled, 200);
    expect(scheduled.body).toMatchObject({
      tier: 'pro',
      scheduled_downgrade: { tier: 'starter', interval: 'month', effective_at: '2026-04-01T12:00:00.000Z' },
    });
    await advance(31 * DAY);
    expect(await s.status()).toMatchObject({ tier: 'starter', scheduled_downgrade: null, current_period_end: '2026-05-01T12:00:00.000Z' });
    expect(await s.balance()).toBe(4000 + 1000);
  });

  it('can be withdrawn; withdrawing none, or downgrading up, is a 409', async () => {
    const s = await subscriber();
    expectApiError(await s.call('POST', '/schedule-downgrade', { tier: 'starter' }), 409, { code: 'no_active_subscription' });
    await s.subscribe('pro');
    expectApiError(await s.call('POST', '/cancel-scheduled-downgrade'), 409, { code: 'no_scheduled_downgrade' });
    expectApiError(await s.call('POST', '/schedule-downgrade', { tier: 'pro' }), 409, { code: 'not_a_downgrade' });
    await s.call('POST', '/schedule-downgrade', { tier: 'starter', interval: 'year' });
    const withdrawn = await s.call('POST', '/cancel-scheduled-downgrade');
    expect(withdrawn.body).toMatchObject({ tier: 'pro', scheduled_downgrade: null });
    await advance(31 * DAY);
    expect(await s.status()).toMatchObject({ tier: 'pro', interval: 'month' });
  });
});

describe('cancel and renew', () => {
  it('cancel takes effect at the period end; renew before then lifts it', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    const canceled = await s.call('POST', '/cancel');
    expect(canceled.body).toMatchObject({ status: 'active', cancel_at_period_end: true });
    const twice = await s.call('POST', '/cancel');
    expectApiError(twice, 409, { code: 'already_canceling' });
    expect(twice.body.error.message).toContain('canceled from the period end (2026-04-01T12:00:00.000Z)');
    expectApiError(await s.call('POST', '/upgrade', { tier: 'pro' }), 409, { code: 'subscription_canceling' });
    const renewed = await s.call('POST', '/renew');
    expect(renewed.body).toMatchObject({ status: 'active', cancel_at_period_end: false, checkout_session: null });
    expectApiError(await s.call('POST', '/renew'), 409, { code: 'not_canceling' });
  });

  it('a canceled subscription ends at the period end with no further credits; renew then starts again through a checkout', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    await s.call('POST', '/cancel');
    await advance(31 * DAY);
    expect(await s.status()).toMatchObject({ status: 'canceled', tier: 'starter', cancel_at_period_end: false });
    expect(await s.balance()).toBe(1000);
    expect((await t.server.store.subscriptions.current({ appUuid: s.appUuid, livemode: true }, ''))?.status).toBe('canceled');
    expectApiError(await s.call('POST', '/cancel'), 409, { code: 'no_active_subscription' });

    const renewed = await s.call('POST', '/renew');
    expectStatus(renewed, 200);
    expect(renewed.body).toMatchObject({ status: 'canceled', checkout_session: { object: 'checkout.session', amount_usd: 9 } });
    await fetch(`${renewed.body.checkout_session.url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(await s.status()).toMatchObject({ status: 'active', tier: 'starter', current_period_start: t.clock.now().toISOString() });
    expect(await s.balance()).toBe(2000);
  });

  it('shows canceled as soon as the period has ended, even before the processor reports it', async () => {
    const s = await subscriber();
    await s.subscribe('starter');
    await s.call('POST', '/cancel');
    t.clock.advance(31 * DAY); // no wait for the billing clock
    expect((await s.status()).status).toBe('canceled');
    await t.server.services.billingClock.idle();
  });
});

describe('the customer portal (sandbox)', () => {
  it('needs a subscription, then gives a page to cancel and renew', async () => {
    const s = await subscriber();
    expectApiError(await s.call('POST', '/customer-portal', {}), 409, { code: 'no_subscription' });
    await s.subscribe('pro');
    const portal = await s.call('POST', '/customer-portal', { return_url: 'https://app.example/account' });
    expectStatus(portal, 200);
    expect(portal.body).toMatchObject({ object: 'portal.session', url: expect.stringMatching(/\/sandbox\/portal\/bps_[0-9a-f]{32}$/) });
    expect(await (await fetch(portal.body.url)).text()).toContain('renews on 2026-04-01');

    const cancel = await fetch(`${portal.body.url}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe('https://app.example/account');
    expect(await s.status()).toMatchObject({ cancel_at_period_end: true });
    expect(await (await fetch(portal.body.url)).text()).toContain('ends on 2026-04-01');

    await fetch(`${portal.body.url}/renew`, { method: 'POST', redirect: 'manual' });
    expect(await s.status()).toMatchObject({ cancel_at_period_end: false });
    expect((await fetch(`${portal.body.url}/cancel`)).status).toBe(405);
    expect((await fetch(portal.body.url.replace(/bps_\w+/, `bps_${'0'.repeat(32)}`))).status).toBe(404);
  });
});

describe('two subscription checkouts opened at once', () => {
  it('only the first one paid starts a subscription; the second cannot be paid', async () => {
    const s = await subscriber();
    const first = await s.call('POST', '/checkout-session', { tier: 'starter', interval: 'month' });
    const second = await s.call('POST', '/checkout-session', { tier: 'pro', interval: 'month' });
    await fetch(`${first.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    const refused = await fetch(`${second.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('already active');
    expect(await s.status()).toMatchObject({ tier: 'starter' });
    expect(await s.balance()).toBe(1000);
  });
});

describe('an end user’s own subscription', () => {
  it('is the user’s: its credits go to the user, apart from the app’s', async () => {
    const s = await subscriber();
    const user = await sandboxUser(t, s.appUuid, s.key);
    const userCall = (method: string, path: string, body?: unknown) => t.call(method, `${API}${path}`, { ...user.as, body });

    const session = await userCall('POST', '/subscriptions/checkout-session', { tier: 'starter', interval: 'month' });
    expectStatus(session, 201);
    await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    expect((await userCall('GET', '/subscriptions/status')).body).toMatchObject({ status: 'active', tier: 'starter' });
    expect((await userCall('GET', '/credits/balance')).body.credits).toBe(1000);
    // The app has no subscription of its own, and its balance did not move.
    expect(await s.status()).toMatchObject({ status: 'none' });
    expect(await s.balance()).toBe(0);
    expect(await t.server.store.credits.check()).toEqual([]);
  });
});

describe('deleting an app', () => {
  it('ends the subscriptions of the app and of its users at once, with no further grants', async () => {
    const s = await subscriber();
    await s.subscribe('pro');
    const user = await sandboxUser(t, s.appUuid, s.key);
    const userCheckout = await t.call('POST', `${API}/subscriptions/checkout-session`, { ...user.as, body: { tier: 'starter', interval: 'month' } });
    await fetch(`${userCheckout.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(await t.server.store.subscriptions.activeForApp(s.appUuid)).toHaveLength(2);

    expectStatus(await t.call('DELETE', `${API}/developer/apps/${s.appUuid}`, { key: s.key, body: { force: true } }), 200);
    expect(await t.server.store.subscriptions.activeForApp(s.appUuid)).toEqual([]);
    await advance(62 * DAY);
    expect(await t.server.store.subscriptions.activeForApp(s.appUuid)).toEqual([]);
    expect(await t.server.store.credits.check()).toEqual([]);
  });
});
