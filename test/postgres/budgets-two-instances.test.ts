import { afterEach, describe, expect, it } from 'vitest';
import { API, appPath, createKey, createOwnerApp, expectApiError, expectStatus } from '../helpers/api.js';
import { burstBehindGates } from '../helpers/budget-burst.js';
import { liveUsersApp, userChat } from '../helpers/live-users.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { gatedEcho, pricedProvider } from '../helpers/providers.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Budgets across instances (issue 24): two servers over one PostgreSQL database share one key
 * budget and one end-user budget exactly. 40 requests spread over both, behind shut gates, are
 * each held or refused before any is served: exactly as many are admitted as the budget's holds
 * allow, and what is spent never passes it.
 */
const open: TestServer[] = [];
afterEach(async () => {
  for (const server of open.splice(0).reverse()) await server.close();
});

async function twoGatedInstances() {
  const gates = [gatedEcho(), gatedEcho()] as const;
  const schema = await freshSchema();
  const a = await startTestServer({ providers: [pricedProvider(gates[0].adapter)], dbPath: schema.url });
  const dropOnClose = a.close;
  a.close = async () => {
    await dropOnClose();
    await schema.drop();
  };
  open.push(a);
  const b = await joinTestServer(a, { providers: [pricedProvider(gates[1].adapter)] });
  open.push(b);
  return { a, b, gates: [...gates] };
}

const keyChat = (server: TestServer, key: string) =>
  server.call('POST', `${API}/chat/completions`, { key, body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'pay' }] } });

/** What one chat holds: the figure of a 402 from a budget too small for it. */
function heldOf(refused: Awaited<ReturnType<TestServer['call']>>) {
  expectApiError(refused, 402, { code: 'budget_exceeded' });
  return Number(/may cost up to ([\d.]+) credits/.exec(refused.body.error.message)?.[1]);
}

describe.skipIf(!testDatabaseUrl)('budgets across two instances over one PostgreSQL database', () => {
  it('one key budget: 40 requests over both against a budget of 6 holds admit exactly 6', async () => {
    const { a, b, gates } = await twoGatedInstances();
    const app = await createOwnerApp(a, { balanceCredits: 1000 });
    const probe = await createKey(a, app.appUuid, { budget_credits: 0.000001 });
    const held = heldOf(await keyChat(a, probe.secret));
    const key = await createKey(a, app.appUuid, { name: 'shared', budget_credits: 6 * held, budget_period: 'day' });
    const { admitted, answers } = await burstBehindGates(gates, (i) => keyChat(i % 2 ? a : b, key.secret));
    expect(admitted).toBe(6);
    for (const answer of answers) if (answer.status !== 200) expectApiError(answer, 402, { code: 'budget_exceeded' });
    const charged = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.usage.cost as number), 0);
    const listed = await b.call('GET', appPath(app.appUuid, 'api-keys'));
    const after = listed.body.data.find((row: { key_id: string }) => row.key_id === key.key_id);
    expect(after.budget_spent_credits).toBeCloseTo(charged, 6);
    expect(after.budget_spent_credits).toBeLessThanOrEqual(6 * held);
    expect((await a.call('GET', appPath(app.appUuid))).body.held_credits).toBe(0);
    expect(await a.server.store.credits.check()).toEqual([]);
  });

  it('one end-user budget: 40 requests of one user over both against a budget of 4 holds admit exactly 4', async () => {
    const { a, b, gates } = await twoGatedInstances();
    const users = await liveUsersApp(a, { default_user_credits: 100 });
    expectStatus(await a.call('PATCH', appPath(users.appUuid), { body: { user_budget_credits: 0.000001, user_budget_period: 'week' } }), 200);
    const held = heldOf(await userChat(a, (await users.user()).token));
    expectStatus(await a.call('PATCH', appPath(users.appUuid), { body: { user_budget_credits: 4 * held } }), 200);
    const user = await users.user();
    const { admitted, answers } = await burstBehindGates(gates, (i) => userChat(i % 2 ? a : b, user.token));
    expect(admitted).toBe(4);
    for (const answer of answers) if (answer.status !== 200) expectApiError(answer, 402, { code: 'budget_exceeded' });
    const charged = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.usage.cost as number), 0);
    const after = (await b.call('GET', appPath(users.appUuid, 'users', user.address))).body;
    expect(after).toMatchObject({ budget_source: 'app', budget_period: 'week' });
    expect(after.budget_spent_credits).toBeCloseTo(charged, 6);
    expect(after.budget_spent_credits).toBeLessThanOrEqual(4 * held);
    expect(await a.server.store.credits.check()).toEqual([]);
  });
});
