import { describe, expect, it } from 'vitest';
import { checkConservation } from '../../server/services/conservation.js';
import { creditsToMicro } from '../../server/store/money.js';
import type { TestServer } from '../helpers/server.js';
import {
  addDeveloper,
  API,
  appPath,
  createKey,
  createOwnerApp,
  expectApiError,
  expectStatus,
  getApp,
  useTestServer,
} from '../helpers/api.js';

/**
 * Deleting an app that holds credits (ARCHITECTURE.md §6: credits never vanish): refused with a 409 that
 * names the balance, unless the developer says where the credits go; the move is a ledger
 * transfer, so the conservation check still balances.
 */
const t = useTestServer();

const remove = (appUuid: string, body?: Record<string, unknown>, key?: string) =>
  t.call('DELETE', appPath(appUuid), { ...(body ? { body } : {}), ...(key ? { key } : {}) });

/** Every balance equals its ledger, and live balances = sources − spend. */
async function expectLedgerSound(server: TestServer) {
  expect(await server.server.store.credits.check()).toEqual([]);
  const report = await checkConservation(server.server.store);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

/** The ledger entry of the deletion `appUuid` on the receiving account of `payer`. */
const receivedFrom = async (payer: Parameters<TestServer['server']['store']['credits']['used']>[0], appUuid: string) =>
  (await t.server.store.credits.used(payer, [`app-deleted:${appUuid}`])).size === 1;

const testBalanceOf = async (key: string) => (await t.call('GET', `${API}/credits/balance`, { key })).body.credits;

/** Play money for `appUuid`: a test key buys test credits through the sandbox processor. */
async function buyTestCredits(appUuid: string, credits: number) {
  const testKey = (await t.server.services.apiKeys.create(appUuid, { name: 'sandbox', is_test: true })).secret;
  const session = await t.call('POST', `${API}/credits/purchase`, { key: testKey, body: { credits } });
  expectStatus(session, 201);
  expect((await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' })).ok).toBe(true);
  expect(await testBalanceOf(testKey)).toBe(credits);
  return testKey;
}

describe('deleting an app that holds credits', () => {
  it('is refused with a 409 naming the balance and the ways out, and the app stays', async () => {
    t.clock.advance(1_000);
    const doomed = await createOwnerApp(t, { name: 'Doomed', balanceCredits: 12.5 });
    const response = await remove(doomed.appUuid);
    expectApiError(response, 409, { type: 'conflict', code: 'app_holds_credits' });
    expect(response.body.error.message).toContain(`App ${doomed.appUuid} holds 12.5 credits`);
    expect(response.body.error.message).toContain('move_balance_to');
    expect(response.body.error.message).toContain(`force: true to move them to your oldest other app, ${t.appUuid}`);
    expect(await getApp(t, doomed.appUuid)).toMatchObject({ balance_credits: 12.5 });
  });

  it('names test credits too: play money alone keeps an app', async () => {
    const app = await createOwnerApp(t, { name: 'Sandboxed' });
    await buyTestCredits(app.appUuid, 300);
    const response = await remove(app.appUuid);
    expectApiError(response, 409, { code: 'app_holds_credits' });
    expect(response.body.error.message).toContain('holds 0 credits and 300 test credits');
  });

  it('moves the live and test balances to another app with move_balance_to, with a ledger entry each side', async () => {
    const doomed = await createOwnerApp(t, { name: 'Doomed', balanceCredits: 7 });
    await buyTestCredits(doomed.appUuid, 200);
    const heir = await createOwnerApp(t, { name: 'Heir', balanceCredits: 1 });
    const heirTestKey = (await createKey(t, heir.appUuid, { is_test: true })).secret as string;

    const response = await remove(doomed.appUuid, { move_balance_to: heir.appUuid.toUpperCase() });
    expectStatus(response, 200);
    expect(response.body).toEqual({
      id: doomed.appUuid,
      object: 'app',
      deleted: true,
      balance_moved: { to: 'app', app_uuid: heir.appUuid, credits: 7, test_credits: 200 },
    });
    expectApiError(await t.call('GET', appPath(doomed.appUuid)), 404);
    expect(await getApp(t, heir.appUuid)).toMatchObject({ balance_credits: 8 });
    expect(await testBalanceOf(heirTestKey)).toBe(200);
    expect(await receivedFrom({ kind: 'app', appUuid: heir.appUuid }, doomed.appUuid)).toBe(true);
    expect(await receivedFrom({ kind: 'app', appUuid: heir.appUuid, test: true }, doomed.appUuid)).toBe(true);
    expect(await t.server.store.metering.balance({ kind: 'app', appUuid: doomed.appUuid })).toMatchObject({ balanceMicro: 0 });
    await expectLedgerSound(t);
  });

  it('force: true moves the credits to the oldest other app (the default app)', async () => {
    const before = (await getApp(t, t.appUuid)).balance_credits;
    t.clock.advance(1_000);
    const doomed = await createOwnerApp(t, { name: 'Doomed', balanceCredits: 5 });
    t.clock.advance(1_000);
    await createOwnerApp(t, { name: 'Newer' });
    const response = await remove(doomed.appUuid, { force: true });
    expectStatus(response, 200);
    expect(response.body.balance_moved).toEqual({ to: 'app', app_uuid: t.appUuid, credits: 5, test_credits: 0 });
    expect((await getApp(t, t.appUuid)).balance_credits).toBe(before + 5);
    await expectLedgerSound(t);
  });

  it('force: true on a developer’s last app gives the live credits back to the operator and drops test credits, saying so', async () => {
    const b = await addDeveloper(t);
    await t.server.store.credits.grant(
      { kind: 'app', appUuid: b.appUuid },
      { amountMicro: creditsToMicro(9), kind: 'operator_grant', idempotencyKey: 'grant-b', at: t.clock.now().toISOString() },
    );
    await buyTestCredits(b.appUuid, 400);
    const promotions = await t.server.store.metering.balance({ kind: 'promotions' });

    const refused = await remove(b.appUuid, undefined, b.key);
    expectApiError(refused, 409, { code: 'app_holds_credits' });
    expect(refused.body.error.message).toContain('force: true to give them back to the operator (this is your last app');

    const response = await remove(b.appUuid, { force: true }, b.key);
    expectStatus(response, 200);
    expect(response.body.balance_moved).toEqual({ to: 'operator', app_uuid: null, credits: 9, test_credits: 400 });
    expect(await t.server.store.metering.balance({ kind: 'app', appUuid: b.appUuid, test: true })).toMatchObject({ balanceMicro: 0 });
    expect((await t.server.store.metering.balance({ kind: 'promotions' })).balanceMicro).toBe(promotions.balanceMicro + creditsToMicro(9));
    expect(await receivedFrom({ kind: 'promotions' }, b.appUuid)).toBe(true);
    await expectLedgerSound(t);
  });

  it('deletes an app without credits as before, whatever the options', async () => {
    const empty = await createOwnerApp(t, { name: 'Empty' });
    const response = await remove(empty.appUuid, { force: true });
    expectStatus(response, 200);
    expect(response.body).toEqual({ id: empty.appUuid, object: 'app', deleted: true, balance_moved: null });
  });

  it('is refused while requests in flight hold its credits, even with force', async () => {
    const busy = await createOwnerApp(t, { name: 'Busy', balanceCredits: 3 });
    expect(await t.server.store.metering.hold({ kind: 'app', appUuid: busy.appUuid }, creditsToMicro(1), 'req_in_flight')).toEqual({ ok: true });
    const response = await remove(busy.appUuid, { force: true });
    expectApiError(response, 409, { code: 'app_requests_in_flight' });
    expect(response.body.error.message).toContain('1 credits held by requests in flight');
    expect(await getApp(t, busy.appUuid)).toMatchObject({ balance_credits: 3, held_credits: 1 });
  });
});

describe('where the balance may go', () => {
  it('not to the app itself (400), nor to an app that is not one of the developer’s (404)', async () => {
    const doomed = await createOwnerApp(t, { name: 'Doomed', balanceCredits: 2 });
    expectApiError(await remove(doomed.appUuid, { move_balance_to: doomed.appUuid }), 400, { param: 'move_balance_to' });
    expectApiError(await remove(doomed.appUuid, { move_balance_to: '00000000-0000-4000-8000-000000000000' }), 404, {
      code: 'app_not_found',
      param: 'move_balance_to',
    });
    const other = await addDeveloper(t);
    expectApiError(await remove(doomed.appUuid, { move_balance_to: other.appUuid }), 404, { param: 'move_balance_to' });
    const gone = await createOwnerApp(t, { name: 'Gone' });
    expectStatus(await remove(gone.appUuid), 200);
    expectApiError(await remove(doomed.appUuid, { move_balance_to: gone.appUuid }), 404, { param: 'move_balance_to' });
    expect(await getApp(t, doomed.appUuid)).toMatchObject({ balance_credits: 2 });
  });

  it.each([
    [{ move_balance_to: 'not-a-uuid' }, 'move_balance_to'],
    [{ force: 'yes' }, 'force'],
    [{ forse: true }, null],
  ])('refuses the body %j with a 400', async (body, param) => {
    const doomed = await createOwnerApp(t, { name: 'Doomed', balanceCredits: 2 });
    const response = await remove(doomed.appUuid, body);
    expectApiError(response, 400, { type: 'invalid_request_error', ...(param ? { param } : {}) });
    expect(await getApp(t, doomed.appUuid)).toMatchObject({ balance_credits: 2 });
  });
});
