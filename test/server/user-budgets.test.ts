import { describe, expect, it } from 'vitest';
import { budgetHeaders } from '../../server/services/inference/budget-answers.js';
import { API, appPath, createOwnerApp, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { burstBehindGates } from '../helpers/budget-burst.js';
import { liveUsersApp, userChat } from '../helpers/live-users.js';
import { gatedEcho, pricedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * End-user budgets (issue 24): an app's default budget for its users and a user's own, held in
 * the same atomic step as the balance, windows from the injected clock, on both backends.
 */
const t = useTestServer({ providers: [pricedProvider()] });

/** Live users of a funded standard app (each given 100 credits) under this default budget (none when empty). */
async function usersUnder(budget: Record<string, unknown>, fields: Parameters<typeof liveUsersApp>[1] = {}, server = t) {
  const app = await liveUsersApp(server, { default_user_credits: 100, ...fields });
  if (Object.keys(budget).length > 0) expectStatus(await server.call('PATCH', appPath(app.appUuid), { body: budget }), 200);
  return app;
}

async function userOf(appUuid: string, address: string, server = t) {
  const answer = await server.call('GET', appPath(appUuid, 'users', address));
  expectStatus(answer, 200);
  return answer.body as Record<string, unknown>;
}

/** What one `userChat()` costs and what it holds (the hold read from a 402 of a budget too small for it). */
async function measure() {
  const probe = await usersUnder({ user_budget_credits: 0.000001, user_budget_period: 'day' });
  const refused = await userChat(t, (await probe.user()).token);
  expectApiError(refused, 402, { code: 'budget_exceeded' });
  const held = Number(/may cost up to ([\d.]+) credits/.exec(refused.body.error.message)?.[1]);
  const free = await usersUnder({});
  const served = await userChat(t, (await free.user()).token);
  expectStatus(served, 200);
  return { held, cost: served.body.usage.cost as number };
}

describe('end-user budgets: set and shown', () => {
  it('an app default for its users, a user’s own overriding it, null going back to the default', async () => {
    const created = await t.call('POST', `${API}/developer/apps`, { body: { name: 'budgeted', user_budget_credits: 5, user_budget_period: 'week' } });
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ user_budget_credits: 5, user_budget_period: 'week' });

    const { cost } = await measure();
    const app = await usersUnder({ user_budget_credits: 20, user_budget_period: 'day' });
    const user = await app.user();
    expectStatus(await userChat(t, user.token), 200);
    expect(await userOf(app.appUuid, user.address)).toMatchObject({
      budget_credits: 20,
      budget_period: 'day',
      budget_source: 'app',
      budget_spent_credits: cost,
      budget_resets_at: '2026-03-02T00:00:00.000Z',
    });

    const path = appPath(app.appUuid, 'users', user.address);
    const own = await t.call('PATCH', path, { body: { budget_credits: 1, budget_period: '12h' } });
    expectStatus(own, 200);
    // A changed budget starts a fresh window; a duration window starts at the next spend.
    expect(own.body).toMatchObject({ budget_credits: 1, budget_period: '12h', budget_source: 'user', budget_spent_credits: 0, budget_resets_at: null });
    const listed = await t.call('GET', appPath(app.appUuid, 'users'));
    expect(listed.body.data.find((row: { address: string }) => row.address === user.address)).toMatchObject({ budget_source: 'user', budget_credits: 1 });
    // Only the period: the amount stays. The credit limit is untouched by a budget change, and the reverse.
    expect((await t.call('PATCH', path, { body: { budget_period: 'month' } })).body).toMatchObject({ budget_credits: 1, budget_period: 'month' });
    expect((await t.call('PATCH', path, { body: { credits: 3 } })).body).toMatchObject({ credit_limit: 3, budget_credits: 1, budget_source: 'user' });

    const cleared = await t.call('PATCH', path, { body: { budget_credits: null } });
    expect(cleared.body).toMatchObject({ budget_credits: 20, budget_period: 'day', budget_source: 'app', credit_limit: 3 });
    const noDefault = await t.call('PATCH', appPath(app.appUuid), { body: { user_budget_credits: null } });
    expect(noDefault.body).toMatchObject({ user_budget_credits: null, user_budget_period: null });
    expect(await userOf(app.appUuid, user.address)).toMatchObject({
      budget_credits: null,
      budget_period: null,
      budget_source: null,
      budget_spent_credits: null,
      budget_resets_at: null,
    });
    expectStatus(await userChat(t, user.token), 200);
  });
});

describe('end-user budgets: windows', () => {
  it('a day budget: refused when spent, naming the user, what is left and the reset; open again the next UTC day', async () => {
    const { held, cost } = await measure();
    const app = await usersUnder({ user_budget_credits: held, user_budget_period: 'day' });
    const user = await app.user();
    const first = await userChat(t, user.token);
    expectStatus(first, 200);
    // What is left beside this request's own hold: the budget was exactly that hold.
    expect(first.headers.get('x-svc-budget-reset')).toBe('2026-03-02T00:00:00.000Z');
    expect(first.headers.get('x-svc-budget-remaining')).toBe('0');
    const refused = await userChat(t, user.token);
    expectApiError(refused, 402, { type: 'insufficient_credits', code: 'budget_exceeded' });
    expect(refused.body.error.message).toContain(`user ${user.address}`);
    expect(refused.body.error.message).toContain(`leaving ${Math.round((held - cost) * 1e6) / 1e6}`);
    expect(refused.body.error.message).toContain('The user budget resets at 2026-03-02T00:00:00.000Z');
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600));
    // Others of the app have budgets of their own.
    expectStatus(await userChat(t, (await app.user()).token), 200);
    t.clock.set('2026-03-02T00:00:00.000Z');
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-03-03T00:00:00.000Z' });
    expectStatus(await userChat(t, (await app.user(user.address)).token), 200);
  });

  it('a week budget runs Monday to Monday (UTC)', async () => {
    t.clock.set('2026-03-04T10:00:00.000Z'); // a Wednesday
    const { cost } = await measure();
    const app = await usersUnder({ user_budget_credits: 50, user_budget_period: 'week' });
    const user = await app.user();
    expectStatus(await userChat(t, user.token), 200);
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: cost, budget_resets_at: '2026-03-09T00:00:00.000Z' });
    t.clock.set('2026-03-08T23:59:59.999Z');
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: cost });
    t.clock.set('2026-03-09T00:00:00.000Z');
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-03-16T00:00:00.000Z' });
  });

  it('a month budget rolls at the month end, and February ends on its 28th', async () => {
    t.clock.set('2026-02-10T08:00:00.000Z');
    const { cost } = await measure();
    const app = await usersUnder({ user_budget_credits: 50, user_budget_period: 'month' });
    const user = await app.user();
    expectStatus(await userChat(t, user.token), 200);
    expectStatus(await userChat(t, user.token), 200);
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 2 * cost, budget_resets_at: '2026-03-01T00:00:00.000Z' });
    t.clock.set('2026-02-28T23:59:59.999Z');
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 2 * cost });
    t.clock.set('2026-03-01T00:00:00.000Z');
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: '2026-04-01T00:00:00.000Z' });
  });

  it('a user’s own duration budget starts at their first spend and ends that long after', async () => {
    const { held, cost } = await measure();
    const app = await usersUnder({ user_budget_credits: 1000, user_budget_period: 'month' });
    const user = await app.user();
    expectStatus(await t.call('PATCH', appPath(app.appUuid, 'users', user.address), { body: { budget_credits: held, budget_period: '15m' } }), 200);
    t.clock.advance(5_000);
    expectStatus(await userChat(t, user.token), 200);
    const resets = new Date(t.clock.now().getTime() + 15 * 60_000).toISOString();
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_source: 'user', budget_spent_credits: cost, budget_resets_at: resets });
    t.clock.advance(15 * 60_000 - 1);
    const refused = await userChat(t, user.token);
    expectApiError(refused, 402, { code: 'budget_exceeded' });
    expect(refused.headers.get('retry-after')).toBe('1');
    t.clock.advance(1);
    expect(await userOf(app.appUuid, user.address)).toMatchObject({ budget_spent_credits: 0, budget_resets_at: null });
    expectStatus(await userChat(t, user.token), 200);
  });
});

describe('end-user budgets: exact under concurrency', () => {
  it('40 requests at once from one user against a budget that pays for 5 holds: exactly 5 served, never past it', async () => {
    const { held } = await measure();
    // Behind a shut gate: all 40 are held or refused before any is served and settled.
    const gate = gatedEcho();
    const server = await startTestServer({ providers: [pricedProvider(gate.adapter)] });
    try {
      const app = await usersUnder({ user_budget_credits: 5 * held, user_budget_period: 'month' }, {}, server);
      const user = await app.user();
      const { admitted, answers } = await burstBehindGates([gate], () => userChat(server, user.token));
      expect(admitted).toBe(5);
      for (const answer of answers) if (answer.status !== 200) expectApiError(answer, 402, { code: 'budget_exceeded' });
      const charged = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.usage.cost as number), 0);
      const after = await userOf(app.appUuid, user.address, server);
      expect(after.budget_spent_credits).toBeCloseTo(charged, 6);
      expect(after.spent_credits).toBeCloseTo(charged, 6);
      expect(after.budget_spent_credits as number).toBeLessThanOrEqual(5 * held);
      expect(await server.server.store.credits.check()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('on a pooled app the budget and the credit limit both hold, whichever is tighter refusing', async () => {
    const { held } = await measure();
    const app = await usersUnder({ user_budget_credits: held / 2, user_budget_period: 'day' }, { app_type: 'pooled_api', default_user_credits: 1000 });
    const user = await app.user();
    expectApiError(await userChat(t, user.token), 402, { code: 'budget_exceeded' });
    const path = appPath(app.appUuid, 'users', user.address);
    expectStatus(await t.call('PATCH', path, { body: { budget_credits: 1000, credits: held / 2 } }), 200);
    const limited = await userChat(t, user.token);
    expectApiError(limited, 402, { code: 'insufficient_credits' });
    expect(limited.body.error.message).toMatch(/Credit limit reached/);
    expectStatus(await t.call('PATCH', path, { body: { credits: 1000 } }), 200);
    expectStatus(await userChat(t, user.token), 200);
  });
});

describe('who may set budgets', () => {
  const keyOf = async (server: TestServer, role: 'inference' | 'read_only', isTest = false) =>
    (await server.server.services.apiKeys.create(server.appUuid, { name: role, role, is_test: isTest })).secret;

  it('only an admin key sets a key’s, an app’s or a user’s budget; a key cannot raise its own', async () => {
    const inference = await t.server.services.apiKeys.create(t.appUuid, { name: 'ci', role: 'inference', is_test: false, budget_credits: 1 });
    const attempts = [
      { method: 'PATCH', path: appPath(t.appUuid, 'api-keys', inference.keyId), body: { budget_credits: 1000 } },
      { method: 'PATCH', path: appPath(t.appUuid), body: { user_budget_credits: 1000, user_budget_period: 'day' } },
      { method: 'PATCH', path: appPath(t.appUuid, 'users', '0x00000000000000000000000000000000000000aa'), body: { budget_credits: 1000 } },
    ];
    const refused = [inference.secret, await keyOf(t, 'read_only'), await keyOf(t, 'inference', true), await keyOf(t, 'read_only', true)];
    for (const attempt of attempts) {
      for (const key of refused) {
        const answer = await t.call(attempt.method, attempt.path, { key, body: attempt.body });
        expect(answer.status, `${attempt.path}: ${JSON.stringify(answer.body)}`).toBe(403);
      }
      expectStatus(await t.call(attempt.method, attempt.path, { body: attempt.body }), 200);
    }
    // An end user cannot set their own either.
    const app = await usersUnder({ user_budget_credits: 1, user_budget_period: 'day' });
    const user = await app.user();
    const own = await t.call('PATCH', appPath(app.appUuid, 'users', user.address), { ...user.as, body: { budget_credits: 1000 } });
    expect(own.status).toBe(403);
  });
});

describe('bad budgets are 400s naming the field, never 500s', () => {
  it('on users update, app create and app update', async () => {
    const app = await createOwnerApp(t, {});
    const user = appPath(app.appUuid, 'users', '0x00000000000000000000000000000000000000bb');
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['PATCH', user, { budget_credits: -1 }, 'budget_credits'],
      ['PATCH', user, { budget_credits: 1e12 }, 'budget_credits'],
      ['PATCH', user, { budget_credits: 'ten' }, 'budget_credits'],
      ['PATCH', user, { budget_credits: 5, budget_period: 'fortnight' }, 'budget_period'],
      ['PATCH', user, { budget_credits: 5, budget_period: '0d' }, 'budget_period'],
      ['PATCH', user, { budget_credits: 5, budget_period: '99999999999d' }, 'budget_period'],
      ['PATCH', user, { budget_credits: 5, budget_period: '-7d' }, 'budget_period'],
      ['PATCH', user, { budget_credits: null, budget_period: 'day' }, 'budget_period'],
      ['PATCH', user, { budget_period: 'week' }, 'budget_credits'],
      ['POST', `${API}/developer/apps`, { name: 'x', user_budget_credits: -5 }, 'user_budget_credits'],
      ['POST', `${API}/developer/apps`, { name: 'x', user_budget_credits: 5, user_budget_period: '1w' }, 'user_budget_period'],
      ['POST', `${API}/developer/apps`, { name: 'x', user_budget_period: 'day' }, 'user_budget_credits'],
      ['PATCH', appPath(app.appUuid), { user_budget_credits: 1e300 }, 'user_budget_credits'],
      ['PATCH', appPath(app.appUuid), { user_budget_credits: 5, user_budget_period: '' }, 'user_budget_period'],
      ['PATCH', appPath(app.appUuid), { user_budget_period: 'month' }, 'user_budget_credits'],
    ];
    for (const [method, path, body, param] of cases) {
      const answer = await t.call(method, path, { body });
      expect(answer.status, `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error.param, JSON.stringify(body)).toBe(param);
    }
  });
});

describe('budget headers', () => {
  it('name the tightest of the budgets that apply, and nothing when none does', () => {
    const budget = (limitMicro: number, spentMicro: number, resetsAt: string) => ({ limitMicro, spentMicro, heldMicro: 0, windowStart: '2026-03-01T00:00:00.000Z', resetsAt });
    expect(budgetHeaders({})).toEqual({});
    expect(budgetHeaders({ key: budget(10_000_000, 1_000_000, '2026-04-01T00:00:00.000Z'), user: budget(5_000_000, 0, '2026-03-02T00:00:00.000Z') })).toEqual({
      'x-svc-budget-remaining': '5',
      'x-svc-budget-reset': '2026-03-02T00:00:00.000Z',
    });
    expect(budgetHeaders({ key: budget(10_000_000, 9_500_000, '2026-04-01T00:00:00.000Z'), user: budget(5_000_000, 0, '2026-03-02T00:00:00.000Z') })).toEqual({
      'x-svc-budget-remaining': '0.5',
      'x-svc-budget-reset': '2026-04-01T00:00:00.000Z',
    });
  });
});
