import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../../client/errors.js';
import type { Checkout, DashboardApi, Plan, PlanChoice, Subscription } from '../api.js';
import { active, NO_SUBSCRIPTION as NONE, PLANS } from '../../../../test/helpers/subscription-fixtures.js';
import { KEY, fakeApi, openDashboard } from '../../../../test/helpers/dashboard.js';

/**
 * The screen's behaviour in every state, on a fake port that keeps a subscription the way
 * ARCHITECTURE.md §6 describes, with the contract's shapes (and answers a real server could not be made
 * to give on cue: a declined card, a server without subscriptions). The flows against the real
 * server and its sandbox processor are in SubscriptionScreen.server.test.tsx.
 */
afterEach(() => cleanup());

const session = (url: string): Checkout => ({
  id: 'cs_1',
  object: 'checkout.session',
  url,
  livemode: true,
  status: 'open',
  credits: null,
  amount_usd: 29,
  expires_at: '2026-03-02T00:00:00.000Z',
});

/** A subscription that changes as the design says; `calls` records what the screen asked for. */
function subscriptionPort(start: Subscription, overrides: Partial<DashboardApi> = {}) {
  let status = start;
  const calls: string[] = [];
  const change = (call: string, next: Partial<Subscription>) => async () => {
    calls.push(call);
    status = { ...status, ...next };
    return status;
  };
  const api = fakeApi({
    plans: async () => PLANS,
    subscription: async () => status,
    checkout: async (chosen: Plan) => (calls.push(`checkout ${chosen.tier} ${chosen.interval}`), session('https://pay.example/cs_1')),
    upgrade: (choice: PlanChoice) => change(`upgrade ${choice.tier} ${choice.interval}`, { tier: choice.tier, interval: choice.interval ?? status.interval })(),
    scheduleDowngrade: (choice: PlanChoice) =>
      change(`downgrade ${choice.tier} ${choice.interval}`, {
        scheduled_downgrade: { tier: choice.tier, interval: choice.interval ?? 'month', effective_at: status.current_period_end ?? '' },
      })(),
    cancelScheduledDowngrade: () => change('cancel-scheduled-downgrade', { scheduled_downgrade: null })(),
    cancel: () => change('cancel', { cancel_at_period_end: true })(),
    renew: () => change('renew', { cancel_at_period_end: false, status: 'active' })(),
    portal: async () => (calls.push('portal'), { id: 'ps_1', object: 'portal.session', url: 'https://pay.example/portal/ps_1' }),
    ...overrides,
  });
  return { api, calls };
}

const open = (api: DashboardApi) => openDashboard({ api, screen: 'subscription' });

describe('the Subscription screen', () => {
  it('shows no subscription and the plans side by side, in 80×24', async () => {
    const { api } = subscriptionPort(NONE);
    const dash = open(api);
    await dash.shows('No subscription. Pick a plan below and press Enter to subscribe.');
    expect(dash.screen()).toMatch(/Starter .*Starter .*Pro .*Pro/);
    expect(dash.screen()).toMatch(/\$9\.00\/month .*\$90\.00\/year .*\$29\.00\/month .*\$290\.00\/year/);
    expect(dash.screen()).toMatch(/subscribe .*subscribe .*subscribe .*subscribe/);
    dash.expectFits();
  });

  it('subscribes through a checkout: asks, then prints the address and keeps it for after', async () => {
    const { api, calls } = subscriptionPort(NONE);
    const dash = open(api);
    await dash.shows('No subscription.');
    dash.press(KEY.right, KEY.right, KEY.enter);
    await dash.shows('Subscribe to Pro · monthly ($29.00/month)?');
    dash.press('y');
    await dash.shows('Checkout for Pro · monthly');
    expect(dash.screen()).toContain('https://pay.example/cs_1');
    expect(calls).toEqual(['checkout pro month']);
    expect(dash.keep).toHaveBeenCalledWith('Checkout for Pro · monthly: https://pay.example/cs_1');
    dash.press(KEY.enter);
    await dash.shows('Opened in your browser.');
    expect(dash.openUrl).toHaveBeenCalledWith('https://pay.example/cs_1');
  });

  it('upgrades at once after a confirmation; the status follows', async () => {
    const { api, calls } = subscriptionPort(active('starter', 'month'));
    const dash = open(api);
    await dash.shows(/Starter · monthly · active · 2026-03-01 → 2026-04-01/);
    expect(dash.screen()).toMatch(/your plan .*upgrade now .*upgrade now .*upgrade now/);
    dash.press(KEY.right, KEY.right, KEY.enter);
    await dash.shows('Upgrade to Pro · monthly ($29.00/month) now?');
    dash.press('y');
    await dash.shows('Upgraded to Pro · monthly.');
    await dash.shows(/Pro · monthly · active/);
    expect(calls).toEqual(['upgrade pro month']);
  });

  it('schedules a downgrade for the period end, and u withdraws it', async () => {
    const { api, calls } = subscriptionPort(active('pro', 'year'));
    const dash = open(api);
    await dash.shows('Pro · yearly · active');
    dash.press(KEY.enter);
    await dash.shows('Downgrade to Starter · monthly ($9.00/month) on 2026-04-01?');
    dash.press('y');
    await dash.shows('Scheduled: Starter · monthly from 2026-04-01. u withdraws it.');
    expect(dash.screen()).toMatch(/scheduled/);
    dash.press('u');
    await dash.shows('Withdraw the downgrade to Starter · monthly?');
    dash.press('y');
    await dash.shows('The scheduled downgrade is withdrawn.');
    await dash.hides('Scheduled:');
    expect(calls).toEqual(['downgrade starter month', 'cancel-scheduled-downgrade']);
    dash.expectFits();
  });

  it('cancels at the period end and renews; each asks first, and says when there is nothing to do', async () => {
    const { api, calls } = subscriptionPort(active('starter', 'month'));
    const dash = open(api);
    await dash.shows('Starter · monthly · active');
    dash.press('n');
    await dash.shows('The subscription is not cancelled: nothing to renew.');
    dash.press('c');
    await dash.shows('Cancel the subscription?');
    expect(dash.screen()).toContain('It stays active until 2026-04-01');
    dash.press(KEY.esc);
    await dash.hides('Cancel the subscription?');
    expect(calls).toEqual([]);
    dash.press('c', 'y');
    await dash.shows('Cancelled: ends on 2026-04-01. n renews it.');
    dash.press('c');
    await dash.shows('There is no running subscription to cancel.');
    dash.press('n');
    await dash.shows('Renew the subscription?');
    dash.press(KEY.enter);
    await dash.shows('The subscription goes on.');
    await dash.hides('Cancelled:');
    expect(calls).toEqual(['cancel', 'renew']);
  });

  it('opens a customer portal session', async () => {
    const { api, calls } = subscriptionPort(active('starter', 'month'));
    const dash = open(api);
    await dash.shows('Starter · monthly');
    dash.press('p');
    await dash.shows('Customer portal');
    expect(dash.screen()).toContain('https://pay.example/portal/ps_1');
    expect(calls).toEqual(['portal']);
  });

  it('a refused change stays in its dialog; Esc returns to a working screen', async () => {
    const refusal = new ApiRequestError(402, { error: { message: 'The card was declined.', type: 'payment_error', code: 'card_declined', param: null } }, null);
    const { api } = subscriptionPort(active('starter', 'month'), { upgrade: () => Promise.reject(refusal) });
    const dash = open(api);
    await dash.shows('Starter · monthly');
    dash.press(KEY.right, KEY.enter);
    await dash.shows('Upgrade to Starter · yearly');
    dash.press('y');
    await dash.shows('✖ The card was declined.');
    expect(dash.screen()).toContain('Upgrade to Starter · yearly');
    dash.expectFits();
    dash.press(KEY.esc);
    await dash.hides('The card was declined.');
    dash.press('p');
    await dash.shows('Customer portal');
  });

  it('a server without subscriptions says so inline', async () => {
    const missing = new ApiRequestError(501, { error: { message: 'Subscriptions are not built yet.', type: 'not_implemented', code: null, param: null } }, null);
    const dash = open(fakeApi({ subscription: () => Promise.reject(missing), plans: async () => PLANS }));
    await dash.shows(/Could not load the subscription: Subscriptions are not built yet\. \(this\s+server does not offer it yet\)/);
    dash.press('1');
    await dash.shows('No apps yet. Press n to create one.');
  });
});
