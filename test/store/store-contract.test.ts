import { afterEach, beforeEach, expect, it } from 'vitest';
import { InsufficientFundsError, type Payer, type Store } from '../../server/store/types.js';
import { credits, describeEachBackend, newDeveloper, STORE_TEST_AT, usageRow } from '../helpers/stores.js';

/**
 * The store's contract, the same cases on SQLite and on PostgreSQL: what every service relies on
 * — apps and their balances, grants and transfers that never move twice, holds that never let a
 * balance be spent twice, settlements that never charge past a balance, the ledger that always
 * explains every balance, and the mode and owner fences of stored objects.
 */
const AT = STORE_TEST_AT;

describeEachBackend('store contract', (backend) => {
  let store: Store;
  let close: () => Promise<void>;
  let developerId: string;
  let newApp: Awaited<ReturnType<typeof newDeveloper>>['newApp'];
  beforeEach(async () => {
    ({ store, close } = await backend.open());
    ({ developerId, newApp } = await newDeveloper(store));
  });
  afterEach(async () => close());

  const usage = usageRow;
  const expectLedgerSound = async () => expect(await store.credits.check()).toEqual([]);

  it('creates, reads, lists and updates apps, each developer seeing only their own', async () => {
    const app = await newApp(5);
    expect(app).toMatchObject({ developerId, balanceMicro: credits(5), heldMicro: 0, appType: 'standard' });
    expect(await store.apps.get(developerId, app.appUuid)).toMatchObject({ appUuid: app.appUuid, balanceMicro: credits(5) });
    expect(await store.apps.get('dev_someone_else', app.appUuid)).toBeNull();
    const updated = await store.apps.update(developerId, app.appUuid, { name: 'renamed', rateLimitRpm: 7 }, AT);
    expect(updated).toMatchObject({ name: 'renamed', rateLimitRpm: 7 });
    expect(await store.apps.update('dev_someone_else', app.appUuid, { name: 'stolen' }, AT)).toBeNull();
    const listed = await store.apps.list(developerId, { limit: 10, offset: 0 });
    expect(listed.items.map((a) => a.appUuid)).toEqual([app.appUuid]);
    expect(listed.total).toBe(1);
    await expectLedgerSound();
  });

  it('grants once per idempotency key, and the ledger explains every balance', async () => {
    const app = await newApp();
    const payer: Payer = { kind: 'app', appUuid: app.appUuid };
    const grant = { amountMicro: credits(3), kind: 'grant', idempotencyKey: 'purchase:1', at: AT };
    expect(await store.credits.grant(payer, grant)).toEqual({ granted: true, balanceMicro: credits(3) });
    expect(await store.credits.grant(payer, grant)).toEqual({ granted: false, balanceMicro: credits(3) });
    expect(await store.credits.used(payer, ['purchase:1', 'purchase:2'])).toEqual(new Set(['purchase:1']));
    // The same key on another account is another grant.
    const other = await newApp();
    expect((await store.credits.grant({ kind: 'app', appUuid: other.appUuid }, grant)).granted).toBe(true);
    await expectLedgerSound();
  });

  it('transfers all or nothing, once per key, never past what the sponsor has', async () => {
    const sponsor = await newApp(2);
    const user: Payer = { kind: 'user', appUuid: sponsor.appUuid, address: 'ada@example.com' };
    await store.users.ensure({ appUuid: sponsor.appUuid, livemode: true }, 'ada@example.com', AT);
    const from: Payer = { kind: 'app', appUuid: sponsor.appUuid };
    const move = { amountMicro: credits(1.5), kind: 'top_up', idempotencyKey: 'move:1', at: AT };
    expect(await store.credits.transfer(from, user, move)).toMatchObject({ granted: true, balanceMicro: credits(1.5) });
    expect(await store.credits.transfer(from, user, move)).toMatchObject({ granted: false });
    await expect(store.credits.transfer(from, user, { ...move, idempotencyKey: 'move:2' })).rejects.toBeInstanceOf(InsufficientFundsError);
    expect(await store.metering.balance(from)).toEqual({ balanceMicro: credits(0.5), heldMicro: 0 });
    await expectLedgerSound();
  });

  it('never holds more than is available, however many holds race', async () => {
    const app = await newApp(10);
    const payer: Payer = { kind: 'app', appUuid: app.appUuid };
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.metering.hold(payer, credits(1), `race-${i}`)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, availableMicro: 0 });
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: credits(10), heldMicro: credits(10) });
  });

  it('settles the real cost, releases the hold and writes the usage row, and never charges past the balance', async () => {
    const app = await newApp(2);
    const payer: Payer = { kind: 'app', appUuid: app.appUuid };
    expect((await store.metering.hold(payer, credits(1), 'r1')).ok).toBe(true);
    expect(await store.metering.settle(payer, credits(1), credits(0.25), usage(app.appUuid, 'r1', { costMicro: credits(0.25) }))).toEqual({
      chargedMicro: credits(0.25),
    });
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: credits(1.75), heldMicro: 0 });

    // A cost beyond the balance (an upstream that over-ran its bound) takes what there is, never below zero.
    expect((await store.metering.hold(payer, credits(1), 'r2')).ok).toBe(true);
    const over = await store.metering.settle(payer, credits(1), credits(5), usage(app.appUuid, 'r2', { costMicro: credits(5) }));
    expect(over.chargedMicro).toBe(credits(1.75));
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: 0, heldMicro: 0 });
    const audit = await store.credits.audit();
    expect(audit.shortfalls.map((s) => s.requestId)).toEqual(['r2']);
    await expectLedgerSound();
  });

  it('a test payer draws on the test balance only', async () => {
    const app = await newApp(1);
    const test: Payer = { kind: 'app', appUuid: app.appUuid, test: true };
    await store.credits.grant(test, { amountMicro: credits(4), kind: 'test_grant', idempotencyKey: 'test:1', at: AT });
    expect((await store.metering.hold(test, credits(3), 't1')).ok).toBe(true);
    expect(await store.metering.balance(test)).toEqual({ balanceMicro: credits(4), heldMicro: credits(3) });
    expect(await store.metering.balance({ kind: 'app', appUuid: app.appUuid })).toEqual({ balanceMicro: credits(1), heldMicro: 0 });
    await store.metering.settle(test, credits(3), credits(1), usage(app.appUuid, 't1', { costMicro: credits(1), livemode: false }));
    expect(await store.metering.balance(test)).toEqual({ balanceMicro: credits(3), heldMicro: 0 });
    await expectLedgerSound();
  });

  it('keeps an app with credits unless they move, and moves them with ledger entries on both sides', async () => {
    const app = await newApp(3);
    const other = await newApp(0);
    expect(await store.apps.delete(developerId, app.appUuid, AT)).toMatchObject({ outcome: 'holds_credits', balanceMicro: credits(3) });
    expect(await store.apps.delete(developerId, app.appUuid, AT, { appUuid: app.appUuid })).toEqual({ outcome: 'destination_not_found' });
    expect(await store.apps.delete(developerId, app.appUuid, AT, { appUuid: other.appUuid })).toMatchObject({ outcome: 'deleted', movedMicro: credits(3) });
    expect(await store.apps.get(developerId, app.appUuid)).toBeNull();
    expect((await store.apps.get(developerId, other.appUuid))?.balanceMicro).toBe(credits(3));
    await expectLedgerSound();
  });

  it('stores responses per owner and mode: another user or the other mode does not see them', async () => {
    const app = await newApp();
    const owner = { appUuid: app.appUuid, livemode: true, address: 'ada@example.com' };
    await store.responses.put({
      ...owner,
      id: 'resp_1',
      status: 'completed',
      body: { id: 'resp_1', output: [{ id: 'msg_1', type: 'message' }] },
      input: [{ id: 'msg_0', type: 'message', role: 'user' }],
      upstreamId: null,
      createdAt: AT,
      expiresAt: '2026-12-25T10:00:00.000Z',
    });
    expect((await store.responses.get(owner, 'resp_1', AT))?.status).toBe('completed');
    expect(await store.responses.get({ ...owner, livemode: false }, 'resp_1', AT)).toBeNull();
    expect(await store.responses.get({ ...owner, address: 'eve@example.com' }, 'resp_1', AT)).toBeNull();
    expect(await store.responses.findItem(owner, 'msg_0', AT)).toMatchObject({ role: 'user' });
    expect(await store.responses.findItem({ ...owner, livemode: false }, 'msg_0', AT)).toBeNull();
    // A cancel and a finish cannot both win.
    expect(await store.responses.transition('resp_1', ['in_progress'], 'cancelled', {})).toBe(false);
    // Expired ones go.
    expect(await store.responses.get(owner, 'resp_1', '2027-01-01T00:00:00.000Z')).toBeNull();
    expect(await store.responses.deleteExpired('2027-01-01T00:00:00.000Z')).toBe(1);
    expect(await store.responses.delete(owner, 'resp_1')).toBe(false);
  });

  it('gives a text identifier to one caller per app and mode', async () => {
    const app = await newApp();
    const live = { appUuid: app.appUuid, livemode: true };
    const registration = (owner: string, scope = live) => ({ ...scope, channel: 'sms' as const, identifier: '+15550100', owner, preferredModel: null });
    expect(await store.text.register(registration('ada'), AT)).toMatchObject({ owner: 'ada', identifier: '+15550100' });
    expect(await store.text.register(registration('eve'), AT)).toBe('taken');
    // The other mode is another world: the same identifier is free there.
    expect(await store.text.register(registration('eve', { ...live, livemode: false }), AT)).toMatchObject({ owner: 'eve' });
    expect(await store.text.byIdentifier('sms', live, '+15550100')).toMatchObject({ owner: 'ada' });
    expect(await store.text.unregister('sms', live, 'ada')).toMatchObject({ owner: 'ada' });
    expect(await store.text.byIdentifier('sms', live, '+15550100')).toBeNull();
  });

  it('runs exclusive work one at a time', async () => {
    let running = 0;
    let most = 0;
    const work = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
    };
    await Promise.all([store.coordination.exclusively('t', work), store.coordination.exclusively('t', work), store.coordination.exclusively('t', work)]);
    expect(most).toBe(1);
    expect(await store.coordination.leads('billing')).toBe(true);
  });
});
