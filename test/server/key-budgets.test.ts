import { describe, expect, it } from 'vitest';
import { budgetWindowAt, parseBudgetPeriod } from '../../server/services/budgets.js';
import { API, appPath, createKey, createOwnerApp, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { burstBehindGates } from '../helpers/budget-burst.js';
import { gatedEcho, pricedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const t = useTestServer({ providers: [pricedProvider()] });

const chat = (key: string, content = 'pay', server: TestServer = t) =>
  server.call('POST', `${API}/chat/completions`, { key, body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content }] } });

/** A funded app and a live inference key of it with these limits. */
async function budgetedKey(limits: Record<string, unknown>) {
  const app = await createOwnerApp(t, { balanceCredits: 1000 });
  const key = await createKey(t, app.appUuid, { name: 'ci', role: 'inference', ...limits });
  return { appUuid: app.appUuid, keyId: key.key_id as string, secret: key.secret as string };
}

async function keyOf(appUuid: string, keyId: string, server: TestServer = t) {
  const listed = await server.call('GET', appPath(appUuid, 'api-keys'));
  expectStatus(listed, 200);
  return (listed.body.data as { key_id: string }[]).find((key) => key.key_id === keyId) as Record<string, unknown>;
}

/** What one `chat()` costs and what it holds, measured on a key of its own (the hold from its 402). */
async function measure() {
  const probe = await budgetedKey({ budget_credits: 0.000001, budget_period: 'day' });
  const refused = await chat(probe.secret);
  expectApiError(refused, 402, { code: 'budget_exceeded' });
  const held = Number(/may cost up to ([\d.]+) credits/.exec(refused.body.error.message)?.[1]);
  const free = await budgetedKey({});
  const served = await chat(free.secret);
  expectStatus(served, 200);
  return { held, cost: served.body.usage.cost as number };
}

describe('budget windows (pure)', () => {
  const at = (iso: string) => new Date(iso);
  it('days, weeks from Monday and months in UTC; a duration from the first spend', () => {
    const day = parseBudgetPeriod('day')!;
    expect(budgetWindowAt(day, null, at('2026-03-01T23:59:59.999Z'))).toEqual({ start: '2026-03-01T00:00:00.000Z', end: '2026-03-02T00:00:00.000Z', rolled: true });
    const week = parseBudgetPeriod('week')!;
    // 2026-03-01 is a Sunday: its week began on Monday 23 February.
    expect(budgetWindowAt(week, '2026-02-23T00:00:00.000Z', at('2026-03-01T12:00:00Z'))).toMatchObject({ end: '2026-03-02T00:00:00.000Z', rolled: false });
    expect(budgetWindowAt(week, '2026-02-23T00:00:00.000Z', at('2026-03-02T00:00:00Z'))).toMatchObject({ start: '2026-03-02T00:00:00.000Z', rolled: true });
    const month = parseBudgetPeriod('month')!;
    expect(budgetWindowAt(month, null, at('2026-02-10T00:00:00Z'))).toMatchObject({ start: '2026-02-01T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' });
    expect(budgetWindowAt(month, null, at('2028-02-29T12:00:00Z'))).toMatchObject({ end: '2028-03-01T00:00:00.000Z' });
    expect(budgetWindowAt(month, null, at('2026-12-31T23:59:59Z'))).toMatchObject({ end: '2027-01-01T00:00:00.000Z' });
    const halfMinute = parseBudgetPeriod('30s')!;
    expect(budgetWindowAt(halfMinute, '2026-03-01T12:00:00.000Z', at('2026-03-01T12:00:29.999Z'))).toMatchObject({ rolled: false, end: '2026-03-01T12:00:30.000Z' });
    expect(budgetWindowAt(halfMinute, '2026-03-01T12:00:00.000Z', at('2026-03-01T12:00:30.000Z'))).toMatchObject({ rolled: true, start: '2026-03-01T12:00:30.000Z' });
    expect(parseBudgetPeriod('7d')).toEqual({ kind: 'duration', ms: 7 * 86_400_000 });
    for (const bad of ['0d', '1w', 'monthly', '-1d', '1.5h', '9999999d', '']) expect(parseBudgetPeriod(bad)).toBeNull();
  });
});

describe('key budgets', () => {
  it('a day budget: refused when spent, with when it resets, and open again the next UTC day', async () => {
    const { held, cost } = await measure();
    const key = await budgetedKey({ budget_credits: held, budget_period: 'day' });
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_credits: held, budget_period: 'day', budget_spent_credits: 0 });
    const first = await chat(key.secret);
    expectStatus(first, 200);
    expect(first.headers.get('x-svc-budget-reset')).toBe('2026-03-02T00:00:00.000Z');
    // What is left beside this request's own hold: the budget was exactly that hold.
    expect(first.headers.get('x-svc-budget-remaining')).toBe('0');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost, budget_resets_at: '2026-03-02T00:00:00.000Z' });
    const refused = await chat(key.secret);
    expectApiError(refused, 402, { type: 'insufficient_credits', code: 'budget_exceeded' });
    expect(refused.body.error.message).toContain(key.keyId);
    expect(refused.body.error.message).toContain('2026-03-02T00:00:00.000Z');
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600));
    t.clock.set('2026-03-02T00:00:00.000Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-03-03T00:00:00.000Z' });
    expectStatus(await chat(key.secret), 200);
  });

  it('a week budget runs Monday to Monday (UTC)', async () => {
    t.clock.set('2026-03-04T10:00:00.000Z'); // a Wednesday
    const { cost } = await measure();
    const key = await budgetedKey({ budget_credits: 100, budget_period: 'week' });
    expectStatus(await chat(key.secret), 200);
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost, budget_resets_at: '2026-03-09T00:00:00.000Z' });
    t.clock.set('2026-03-08T23:59:59.999Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost });
    t.clock.set('2026-03-09T00:00:00.000Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-03-16T00:00:00.000Z' });
  });

  it('a month budget rolls at the month end, and February ends on its 28th', async () => {
    t.clock.set('2026-01-31T23:59:59.000Z');
    const { cost } = await measure();
    const key = await budgetedKey({ budget_credits: 100, budget_period: 'month' });
    expectStatus(await chat(key.secret), 200);
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost, budget_resets_at: '2026-02-01T00:00:00.000Z' });
    t.clock.set('2026-02-01T00:00:00.000Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-03-01T00:00:00.000Z' });
    expectStatus(await chat(key.secret), 200);
    expectStatus(await chat(key.secret), 200);
    t.clock.set('2026-02-28T23:59:59.999Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 2 * cost });
    t.clock.set('2026-03-01T00:00:00.000Z');
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-04-01T00:00:00.000Z' });
  });

  it('a duration budget starts at the first spend and ends that long after', async () => {
    const { held, cost } = await measure();
    const key = await budgetedKey({ budget_credits: held, budget_period: '30s' });
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: null });
    t.clock.advance(5_000);
    expectStatus(await chat(key.secret), 200);
    const resets = new Date(t.clock.now().getTime() + 30_000).toISOString();
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost, budget_resets_at: resets });
    t.clock.advance(29_999);
    expectApiError(await chat(key.secret), 402, { code: 'budget_exceeded' });
    t.clock.advance(1);
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: null });
    expectStatus(await chat(key.secret), 200);
  });

  it('40 requests at once against a budget that pays for 5 holds: exactly 5 served, never past it', async () => {
    const { held } = await measure();
    // Behind a shut gate: all 40 are held or refused before any is served and settled.
    const gate = gatedEcho();
    const server = await startTestServer({ providers: [pricedProvider(gate.adapter)] });
    try {
      const app = await createOwnerApp(server, { balanceCredits: 1000 });
      const key = await createKey(server, app.appUuid, { name: 'burst', budget_credits: 5 * held, budget_period: 'month' });
      const { admitted, answers } = await burstBehindGates([gate], () => chat(key.secret as string, 'pay', server));
      expect(admitted).toBe(5);
      for (const answer of answers) if (answer.status !== 200) expectApiError(answer, 402, { code: 'budget_exceeded' });
      const charged = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.usage.cost as number), 0);
      const after = await keyOf(app.appUuid, key.key_id as string, server);
      expect(after.budget_spent_credits).toBeCloseTo(charged, 6);
      expect(after.budget_spent_credits as number).toBeLessThanOrEqual(5 * held);
      expect(await server.server.store.credits.check()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('update changes the budget (a fresh window) and the expiry; null removes them', async () => {
    const { cost } = await measure();
    const key = await budgetedKey({ budget_credits: 100, budget_period: 'day' });
    expectStatus(await chat(key.secret), 200);
    expect(await keyOf(key.appUuid, key.keyId)).toMatchObject({ budget_spent_credits: cost });
    const path = appPath(key.appUuid, 'api-keys', key.keyId);
    const changed = await t.call('PATCH', path, { body: { budget_credits: 50, expires_at: '2026-12-31T23:59:59+02:00' } });
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({ budget_credits: 50, budget_period: 'day', budget_spent_credits: 0, expires_at: '2026-12-31T21:59:59.000Z' });
    const removed = await t.call('PATCH', path, { body: { budget_credits: null, expires_at: null } });
    expect(removed.body).toMatchObject({ budget_credits: null, budget_period: null, budget_spent_credits: null, budget_resets_at: null, expires_at: null });
    expectApiError(await t.call('PATCH', appPath(key.appUuid, 'api-keys', 'key_nosuchkey'), { body: { budget_credits: 1 } }), 404);
    expectApiError(await t.call('PATCH', path, { body: { budget_credits: 1 }, key: t.testKey }), 403);
  });

  it('bad budgets and expiries are 400s naming the field', async () => {
    const app = await createOwnerApp(t, {});
    const path = appPath(app.appUuid, 'api-keys');
    const cases: [Record<string, unknown>, string][] = [
      [{ budget_credits: -1 }, 'budget_credits'],
      [{ budget_credits: 1e12 }, 'budget_credits'],
      [{ budget_credits: 'ten' }, 'budget_credits'],
      [{ budget_credits: 5, budget_period: 'fortnight' }, 'budget_period'],
      [{ budget_credits: 5, budget_period: '0d' }, 'budget_period'],
      [{ budget_credits: 5, budget_period: '99999999999d' }, 'budget_period'],
      [{ budget_credits: 5, budget_period: '-7d' }, 'budget_period'],
      [{ budget_period: 'week' }, 'budget_credits'],
      [{ expires_at: 'friday' }, 'expires_at'],
      [{ expires_at: '2026-02-30T00:00:00Z' }, 'expires_at'],
      [{ expires_at: '99999-01-01T00:00:00Z' }, 'expires_at'],
      [{ expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ];
    for (const [body, param] of cases) {
      const answer = await t.call('POST', path, { body });
      expectApiError(answer, 400, { param });
    }
  });
});

describe('key expiry', () => {
  it('works until the second before, and is refused at the second it expires, saying when', async () => {
    const key = await budgetedKey({ expires_at: '2026-03-01T12:00:10Z' });
    t.clock.set('2026-03-01T12:00:09.999Z');
    expectStatus(await t.call('GET', `${API}/key`, { key: key.secret }), 200);
    t.clock.set('2026-03-01T12:00:10.000Z');
    const refused = await t.call('GET', `${API}/key`, { key: key.secret });
    expectApiError(refused, 401, { type: 'authentication_error', code: 'key_expired' });
    expect(refused.body.error.message).toContain('2026-03-01T12:00:10.000Z');
    expectApiError(await chat(key.secret), 401, { code: 'key_expired' });
  });
});

describe('GET /key', () => {
  it('describes the calling key in OpenRouter’s envelope, for every role', async () => {
    const { cost } = await measure();
    const key = await budgetedKey({ budget_credits: 20, budget_period: 'week', expires_at: '2026-12-31T23:59:59Z' });
    expectStatus(await chat(key.secret), 200);
    const answer = await t.call('GET', `${API}/key`, { key: key.secret });
    expectStatus(answer, 200);
    expect(answer.body).toEqual({
      data: {
        key_id: key.keyId,
        label: 'ci',
        role: 'inference',
        is_test: false,
        limit: 20,
        usage: cost,
        limit_remaining: expect.closeTo(20 - cost, 6),
        limit_reset: 'week',
        limit_resets_at: '2026-03-02T00:00:00.000Z',
        expires_at: '2026-12-31T23:59:59.000Z',
      },
    });
    const test = await t.call('GET', `${API}/key`, { key: t.testKey });
    expect(test.body.data).toMatchObject({ is_test: true, limit: null, usage: 0, limit_remaining: null, limit_reset: null, expires_at: null });
    const admin = await t.call('GET', `${API}/key`);
    expect(admin.body.data).toMatchObject({ role: 'admin', is_test: false });
  });
});
