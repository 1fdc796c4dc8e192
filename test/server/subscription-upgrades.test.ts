import { describe, expect, it } from 'vitest';
import { checkConservation } from '../../server/services/conservation.js';
import { creditsToMicro } from '../../server/store/money.js';
import { API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { advance, subscriber, type BillingLine } from '../helpers/subscriber.js';

/**
 * Credits only for money received (ARCHITECTURE.md §6): an upgrade is charged first and grants its prorated
 * credits with that charge, once; a declined payment changes nothing; upgrades at once run one
 * after another. Through the sandbox processor, whose test cards can decline.
 */
const DAY = 24 * 60 * 60 * 1000;
const t = useTestServer();

const upgradeLines = (billing: BillingLine[]) => billing.filter((line) => line.description.endsWith('plan, upgrade'));
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
/** The error of a sandbox page's answer (JSON, as the API's). */
const errorOf = async (response: Response) => ((await response.json()) as { error: Record<string, unknown> }).error;

describe('an upgrade paid with a declining card', () => {
  it('is a 402 card_declined that changes nothing: plan, balance and Billing as they were', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    // Stripe's 4000 0000 0000 0341: it attaches to the customer, then every charge to it is declined.
    expect((await s.useCard('4000 0000 0000 0341')).status).toBe(200);
    const before = { status: await s.status(), balance: await s.balance(), billing: await s.billing() };

    const refused = await s.call('POST', '/upgrade', { tier: 'pro' });
    expectApiError(refused, 402, { type: 'card_error', code: 'card_declined', param: null });
    expect(refused.body.error.message).toMatch(/declined.*nothing was charged/);
    expect({ status: await s.status(), balance: await s.balance(), billing: await s.billing() }).toEqual(before);
    expect(before.status).toMatchObject({ tier: 'starter', status: 'active' });
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });

    // With a card that pays, the same upgrade goes through.
    expect((await s.useCard('4242 4242 4242 4242')).status).toBe(200);
    const upgraded = await s.call('POST', '/upgrade', { tier: 'pro' });
    expectStatus(upgraded, 200);
    expect(upgraded.body).toMatchObject({ tier: 'pro', granted_credits: 3000 });
  });

  it('a card declined at once never becomes the customer’s; a number that is no test card is a 400', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    const declined = await s.useCard('4000000000000002');
    expect(declined.status).toBe(402);
    expect(await errorOf(declined)).toMatchObject({ type: 'card_error', code: 'card_declined' });
    const unknown = await s.useCard('1234 5678');
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toMatchObject({ code: 'invalid_card', param: 'card' });
    expectStatus(await s.call('POST', '/upgrade', { tier: 'pro' }), 200);
  });

  it('a renewal the card declines ends the subscription at the period end, with no further credits', async () => {
    const s = await subscriber(t);
    await s.subscribe('pro');
    await s.useCard('4000000000000341');
    await advance(t, 31 * DAY);
    expect(await s.status()).toMatchObject({ status: 'canceled', tier: 'pro' });
    expect(await s.balance()).toBe(4000);
    expect((await s.billing()).map((line) => line.description)).toEqual(['svc pro (month) plan']);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true });
  });
});

describe('a paid upgrade', () => {
  it('grants once, and its charge is in Billing with the credits it paid for', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    await advance(t, Math.round(31 * DAY * 0.75)); // a quarter of the period left
    const upgraded = await s.call('POST', '/upgrade', { tier: 'pro' });
    expect(upgraded.body).toMatchObject({ tier: 'pro', granted_credits: 750 });
    expect(await s.balance()).toBe(1750);
    // The charge: a quarter of the $20 between the plans.
    expect(upgradeLines(await s.billing())).toEqual([
      expect.objectContaining({ kind: 'subscription', description: 'pro (month) plan, upgrade', amount_usd: 5, credits: 750, status: 'paid' }),
    ]);
    const report = await checkConservation(t.server.store);
    expect(report).toMatchObject({ ok: true, problems: [] });
    expect(report.figures.sources.subscription_upgrade).toBe(String(creditsToMicro(750)));
  });

  it('two in the same second (monthly pro, then yearly pro) are two charges and two grants, none lost', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    const monthly = await s.call('POST', '/upgrade', { tier: 'pro' });
    const yearly = await s.call('POST', '/upgrade', { tier: 'pro', interval: 'year' });
    expect(monthly.body.granted_credits).toBe(3000);
    // A new yearly period now: its 48,000 credits less the month's 4,000 not yet used.
    expect(yearly.body).toMatchObject({ tier: 'pro', interval: 'year', granted_credits: 44000 });
    expect(await s.balance()).toBe(1000 + 3000 + 44000);
    const lines = upgradeLines(await s.billing());
    expect(lines.map((line) => line.credits).sort()).toEqual([3000, 44000]);
    expect(lines.map((line) => line.amount_usd).sort()).toEqual([20, 261]);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });
});

describe('upgrades at once', () => {
  it('run one after another: each is charged and granted once, the grants equal the charges', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    const targets = [
      { tier: 'pro' },
      { tier: 'starter', interval: 'year' },
      { tier: 'pro', interval: 'year' },
      { tier: 'pro' },
      { tier: 'starter', interval: 'year' },
    ];
    const answers = await Promise.all(targets.map((target) => s.call('POST', '/upgrade', target)));
    for (const answer of answers) {
      if (answer.status !== 200) expectApiError(answer, 409, { code: 'not_an_upgrade' });
    }
    const done = answers.filter((answer) => answer.status === 200);
    // Each saw the plan the one before left: at least the top plan's went through, and nothing twice.
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(await s.status()).toMatchObject({ tier: 'pro', interval: 'year', status: 'active' });
    const granted = done.map((answer) => answer.body.granted_credits as number);
    const lines = upgradeLines(await s.billing());
    expect(lines).toHaveLength(done.length);
    expect(lines.map((line) => line.credits).sort()).toEqual([...granted].sort());
    expect(await s.balance()).toBe(1000 + sum(granted));
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });

  it('the same upgrade five times at once: one charge, one grant, four 409s', async () => {
    const s = await subscriber(t);
    await s.subscribe('starter');
    const answers = await Promise.all(Array.from({ length: 5 }, () => s.call('POST', '/upgrade', { tier: 'pro' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await s.balance()).toBe(1000 + 3000);
    expect(upgradeLines(await s.billing())).toEqual([expect.objectContaining({ amount_usd: 20, credits: 3000 })]);
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true });
  });
});

describe('the conservation check', () => {
  it('sees an upgrade grant with no paid charge behind it', async () => {
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true });
    await t.server.store.credits.grant(
      { kind: 'app', appUuid: t.appUuid, test: false },
      { amountMicro: creditsToMicro(500), kind: 'subscription_upgrade', idempotencyKey: 'forged', reference: 'in_never_paid', at: t.clock.now().toISOString() },
    );
    const report = await checkConservation(t.server.store);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/an upgrade granted 500000000 µcredits without a paid charge of them \(it names in_never_paid\)/)]);
    expect((await t.call('GET', `${API}/credits/balance`)).body.credits).toBe(600);
  });
});
