import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { API, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

/** The Subscription screen against the real server and its sandbox processor. */
const t = useTestServer();
afterEach(() => cleanup());

const status = async () => (await t.call('GET', `${API}/subscriptions/status`)).body;

describe('the Subscription screen, on the real server', () => {
  it('fits the four plan cards in 80 columns with every feature whole (wrapped, not cut)', async () => {
    const dash = openDashboard({ api: serverApi(t), screen: 'subscription', now: () => t.clock.now(), size: { columns: 80, rows: 24 } });
    await dash.shows('No subscription.');
    await dash.shows('rate limits');
    const plans = (await t.call('GET', `${API}/subscriptions/plans`)).body.data as { features: string[] }[];
    expect(plans.length).toBe(4);
    // Each card is a 20-column strip; its wrapped lines, joined, hold each of its features whole.
    const lines = dash.screen().split('\n');
    plans.forEach((plan, index) => {
      const card = lines.map((line) => line.slice(index * 20, (index + 1) * 20).replace(/[│║]/g, ' ')).join(' ').replace(/\s+/g, ' ');
      for (const feature of plan.features) expect(card).toContain(`· ${feature}`);
    });
    expect(dash.screen()).not.toContain('…');
    dash.expectFits();
  });

  it('subscribes through the sandbox checkout, upgrades, schedules a downgrade, cancels and renews', async () => {
    const dash = openDashboard({ api: serverApi(t), screen: 'subscription', now: () => t.clock.now() });
    await dash.shows('No subscription.');
    dash.press(KEY.enter);
    await dash.shows('Subscribe to Starter · monthly ($9.00/month)?');
    dash.press('y');
    await dash.shows('Checkout for Starter · monthly');
    const url = /(http:\/\/\S+\/sandbox\/checkout\/cs_[0-9a-f]+)/.exec(dash.screen())?.[1];
    expect(url).toBeDefined();
    // The buyer pays on the checkout page; the dialog sees it, closes, and the status reloads.
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await dash.beat(3_000);
    await dash.shows('✓ Payment received ($9.00)');
    await dash.shows(/Starter · monthly · active · 2026-03-01 → 2026-04-01/);

    dash.press(KEY.right, KEY.right, KEY.enter);
    await dash.shows('Upgrade to Pro · monthly ($29.00/month) now?');
    dash.press('y');
    await dash.shows(/Pro · monthly · active/);
    expect(await status()).toMatchObject({ tier: 'pro', interval: 'month' });

    dash.press(KEY.left, KEY.left, KEY.enter);
    await dash.shows('Downgrade to Starter · monthly ($9.00/month) on 2026-04-01?');
    dash.press('y');
    await dash.shows('Scheduled: Starter · monthly from 2026-04-01. u withdraws it.');
    expect((await status()).scheduled_downgrade).toMatchObject({ tier: 'starter' });

    dash.press('c', 'y');
    await dash.shows('Cancelled: ends on 2026-04-01. n renews it.');
    expect(await status()).toMatchObject({ cancel_at_period_end: true, scheduled_downgrade: null });
    dash.press('n');
    await dash.shows('Renew the subscription?');
    dash.press(KEY.enter);
    await dash.shows('The subscription goes on.');
    expect(await status()).toMatchObject({ cancel_at_period_end: false });

    dash.press('p');
    await dash.shows('Customer portal');
    expect(dash.screen()).toMatch(/\/sandbox\/portal\/bps_/);
    dash.expectFits();
  });

  it('a change the server refuses shows its 409, and the screen goes on', async () => {
    const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'pro', interval: 'month' } });
    await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    await t.call('POST', `${API}/subscriptions/cancel`);
    const dash = openDashboard({ api: serverApi(t), screen: 'subscription', now: () => t.clock.now() });
    await dash.shows(/Pro · monthly/);
    dash.press(KEY.left, KEY.left, KEY.enter);
    await dash.shows('Downgrade to Starter · monthly');
    dash.press('y');
    await dash.shows('renew it before scheduling a downgrade.');
    dash.press(KEY.esc);
    await dash.shows(/Pro · monthly/);
    dash.press('p');
    await dash.shows('Customer portal');
  });
});
