import { beforeAll, describe, expect, it } from 'vitest';
import { fundPromotions } from '../helpers/api.js';
import { explain, useApiCli } from '../helpers/cli.js';

/**
 * Every credits, billing and subscriptions operation, for real, through `svc api` against the
 * sandbox processor: checkouts are paid on the sandbox's own page, as a buyer would.
 */
const cli = useApiCli();
const DAY = 24 * 60 * 60 * 1000;
// Developers' claims are paid from the operator's promotions account.
beforeAll(() => fundPromotions(cli.server, 1000));

async function api(...words: string[]): Promise<any> {
  const result = await cli.run(words);
  expect(result.code, explain(result)).toBe(0);
  return result.json();
}

async function refused(...words: string[]): Promise<any> {
  const result = await cli.run(words);
  expect(result.code, explain(result)).toBe(1);
  return result.errorJson().error;
}

/** The buyer presses Pay on the sandbox checkout page (a redirect with success_url, else a page). */
const pay = async (url: string) => expect([200, 303]).toContain((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status);
const balance = async () => (await api('credits', 'balance')).credits as number;

describe('credits through svc api', () => {
  it('claims, buys and funds, each credited once, and lists the payments in billing', async () => {
    const start = await balance();
    const claim = await api('credits', 'claim-daily');
    expect(claim).toMatchObject({ granted_credits: 10, next_claim_at: expect.any(String) });
    expect((await refused('credits', 'claim-daily')).message).toContain('next claim opens at');

    expect((await api('tasks', 'list')).data.length).toBeGreaterThan(0);
    expect(await api('credits', 'claim-task', '--task-type', 'save_first_memory', '--memories', '1')).toMatchObject({ granted_credits: expect.any(Number) });
    expect(await refused('credits', 'claim-task', '--task-type', 'save_first_memory', '--memories', '1')).toMatchObject({ type: 'conflict' });

    const packs = (await api('credits', 'packs')).data;
    const purchase = await api('credits', 'purchase', '--credits', String(packs[0].credits), '--success-url', 'https://app.example/ok');
    await pay(purchase.url);
    const fund = await api('developer', 'apps', 'fund', cli.server.appUuid, '--credits', '250');
    await pay(fund.url);

    const task = (await api('tasks', 'list')).data.find((t: { type: string }) => t.type === 'save_first_memory');
    expect(await balance()).toBe(start + 10 + task.reward_credits + packs[0].credits + 250);
    const billing = await api('developer', 'billing', '--limit', '10');
    // Both at the same (test) instant: their order is not the point here.
    expect(billing.data.map((line: { kind: string; status: string }) => `${line.kind}:${line.status}`).sort()).toEqual(['app_funding:paid', 'credit_pack:paid']);
    expect(await refused('credits', 'sync-points')).toMatchObject({ type: expect.any(String) });
  });
});

describe('subscriptions through svc api', () => {
  it('runs a subscription’s whole life: plans, checkout, upgrade, downgrade, cancel, renew, portal', async () => {
    const plans = (await api('subscriptions', 'plans')).data;
    expect(plans).toHaveLength(4);
    expect(await api('subscriptions', 'status')).toMatchObject({ status: 'none' });

    const checkout = await api('subscriptions', 'create-checkout-session', '--tier', 'starter', '--interval', 'month');
    await pay(checkout.url);
    expect(await api('subscriptions', 'status')).toMatchObject({ status: 'active', tier: 'starter' });

    const upgraded = await api('subscriptions', 'upgrade', '--tier', 'pro');
    expect(upgraded).toMatchObject({ tier: 'pro', granted_credits: 3000 });
    expect((await refused('subscriptions', 'upgrade', '--tier', 'pro')).message).toContain('You are on pro (month)');

    expect(await api('subscriptions', 'schedule-downgrade', '--tier', 'starter')).toMatchObject({ scheduled_downgrade: { tier: 'starter' } });
    expect(await api('subscriptions', 'cancel-scheduled-downgrade')).toMatchObject({ scheduled_downgrade: null });

    expect(await api('subscriptions', 'cancel')).toMatchObject({ cancel_at_period_end: true });
    expect(await api('subscriptions', 'renew')).toMatchObject({ cancel_at_period_end: false, checkout_session: null });

    const portal = await api('subscriptions', 'customer-portal', '--return-url', 'https://app.example/account');
    expect(portal.url).toMatch(/\/sandbox\/portal\/bps_/);

    await api('subscriptions', 'cancel');
    cli.server.clock.advance(32 * DAY);
    await cli.server.server.services.billingClock.idle();
    expect(await api('subscriptions', 'status')).toMatchObject({ status: 'canceled' });
    const again = await api('subscriptions', 'renew');
    await pay(again.checkout_session.url);
    expect(await api('subscriptions', 'status')).toMatchObject({ status: 'active', tier: 'pro' });
  });
});
