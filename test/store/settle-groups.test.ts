import { expect, it } from 'vitest';
import { credits, describeEachBackend, STORE_TEST_AT, usageRow } from '../helpers/stores.js';
import { useFundedApp } from './funded-app.js';

/**
 * Settlements that arrive together (one turn of the event loop) are written together, on both
 * backends (SQLite's group commit, PostgreSQL's one transaction per account): each is charged
 * exactly as it would be alone, and one that fails does not fail the others. A request settles
 * once: a settlement that finds its usage row written (a group retried alone after its COMMIT's
 * reply was lost, which may have committed) moves no money and writes no second row.
 */
describeEachBackend('settlements together', (backend) => {
  const app = useFundedApp(backend, 20);

  const usage = (requestId: string, costMicro: number) => usageRow(app.appUuid, requestId, { costMicro });

  it('charges each of many settled at once exactly, releasing every hold, and the last one only what is left', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `together-${i}`);
    const holds = await Promise.all(ids.map((id) => app.store.metering.hold(app.payer, credits(1), id)));
    const held = ids.filter((_, i) => holds[i]?.ok);
    expect(held).toHaveLength(20);
    // 19 at 0.5 credits, and one that over-ran its bound: it takes what the balance has left beside the others.
    const costs = held.map((_, i) => (i === held.length - 1 ? credits(50) : credits(0.5)));
    const settled = await Promise.all(held.map((id, i) => app.store.metering.settle(app.payer, credits(1), costs[i] as number, usage(id, costs[i] as number))));
    expect(settled.slice(0, -1)).toEqual(Array.from({ length: 19 }, () => ({ chargedMicro: credits(0.5) })));
    expect(settled.at(-1)).toEqual({ chargedMicro: credits(20 - 9.5) });
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: 0, heldMicro: 0 });
    expect(await app.store.credits.check()).toEqual([]);
    expect((await app.store.credits.audit()).shortfalls.map((s) => s.requestId)).toEqual([held.at(-1)]);
    // The group's rows are in the rollups the reports read, each once (SQLite adds them together).
    expect(await reported()).toMatchObject({ requests: 20, chargedMicro: credits(20), inputTokens: 200, outputTokens: 100 });
  });

  it('one settlement that fails leaves the others of its group charged; one given twice is charged once', async () => {
    const ids = ['a', 'b', 'c', 'd', 'bad'];
    for (const id of ids) expect((await app.store.metering.hold(app.payer, credits(1), id)).ok).toBe(true);
    // A usage row the database refuses (no provider), and `b` twice in the same turn.
    const row = (id: string) => (id === 'bad' ? { ...usage(id, credits(0.25)), provider: null as unknown as string } : usage(id, credits(0.25)));
    const outcomes = await Promise.allSettled([...ids, 'b'].map((id) => app.store.metering.settle(app.payer, credits(1), credits(0.25), row(id))));
    const charged = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.chargedMicro : null));
    // `b`'s second settlement finds its usage row written: it answers b's one charge.
    expect(charged).toEqual([credits(0.25), credits(0.25), credits(0.25), credits(0.25), null, credits(0.25)]);
    expect(await app.store.metering.balance(app.payer)).toMatchObject({ balanceMicro: credits(19) });
    expect(await app.store.credits.check()).toEqual([]);
  });

  const reported = async () => {
    const window = { appUuid: app.appUuid, livemode: true, start: '2026-11-25T00:00:00.000Z', end: '2026-11-26T00:00:00.000Z' };
    const rows = await app.store.usage.byModel(window);
    return rows.reduce((sum, row) => ({ requests: sum.requests + row.requests, chargedMicro: sum.chargedMicro + row.chargedMicro, inputTokens: sum.inputTokens + row.inputTokens, outputTokens: sum.outputTokens + row.outputTokens }), { requests: 0, chargedMicro: 0, inputTokens: 0, outputTokens: 0 });
  };

  const requests = async () => {
    const window = { appUuid: app.appUuid, livemode: true, start: '2026-11-25T00:00:00.000Z', end: '2026-11-26T00:00:00.000Z' };
    return (await app.store.usage.byModel(window)).reduce((sum, row) => sum + row.requests, 0);
  };

  it('a settlement retried after it was written answers the first charge and moves nothing', async () => {
    expect((await app.store.metering.hold(app.payer, credits(2), 'paid')).ok).toBe(true);
    expect((await app.store.metering.hold(app.payer, credits(1), 'free')).ok).toBe(true);
    const paid = usageRow(app.appUuid, 'paid', { costMicro: credits(1.5) });
    const free = usageRow(app.appUuid, 'free', { costMicro: 0 });
    expect(await app.store.metering.settle(app.payer, credits(2), credits(1.5), paid)).toEqual({ chargedMicro: credits(1.5) });
    expect(await app.store.metering.settle(app.payer, credits(1), 0, free)).toEqual({ chargedMicro: 0 });
    // The retries, each alone in its turn (as a group retried after a lost reply is).
    expect(await app.store.metering.settle(app.payer, credits(2), credits(1.5), paid)).toEqual({ chargedMicro: credits(1.5) });
    expect(await app.store.metering.settle(app.payer, credits(1), 0, free)).toEqual({ chargedMicro: 0 });
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(18.5), heldMicro: 0 });
    expect(await requests()).toBe(2);
    expect(await app.store.credits.check()).toEqual([]);
    // A new hold still sees the whole balance: the retries released nobody else's hold.
    expect((await app.store.metering.hold(app.payer, credits(18.5), 'after')).ok).toBe(true);
  });

  it('a group that holds a settled request beside new ones: it answers its charge again, the others are charged once', async () => {
    for (const id of ['first', 'second', 'third']) expect((await app.store.metering.hold(app.payer, credits(1), id)).ok).toBe(true);
    const row = (id: string) => usage(id, credits(0.75));
    expect(await app.store.metering.settle(app.payer, credits(1), credits(0.75), row('first'))).toEqual({ chargedMicro: credits(0.75) });
    // One turn: the retry of `first` and two new settlements, written together.
    const settled = await Promise.all(['first', 'second', 'third'].map((id) => app.store.metering.settle(app.payer, credits(1), credits(0.75), row(id))));
    expect(settled).toEqual([{ chargedMicro: credits(0.75) }, { chargedMicro: credits(0.75) }, { chargedMicro: credits(0.75) }]);
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(20 - 2.25), heldMicro: 0 });
    expect(await requests()).toBe(3);
    expect(await app.store.credits.check()).toEqual([]);
  });

  it('a group adds to keys\' and users\' budgets, users\' spend and rate counters what each settlement would alone', async () => {
    const day = { start: '2026-11-25T00:00:00.000Z', end: '2026-11-26T00:00:00.000Z' };
    const windowAt = (_period: string, stored: string | null) => ({ ...day, rolled: stored !== day.start });
    const budget = { limitMicro: credits(10), period: 'day' };
    await app.store.apiKeys.create({ keyId: 'key_g', appUuid: app.appUuid, name: 'g', isTest: false, role: 'admin', prefix: 'svc_live_g…', secretHash: 'hg', budget, at: STORE_TEST_AT });
    const scope = { appUuid: app.appUuid, livemode: true };
    await app.store.users.update(scope, 'alice', { budget }, STORE_TEST_AT);
    // Two on the key, two by alice (one through the key too), one on neither; tokens on some.
    const requests = [
      { id: 'k1', cost: 0.5, budgets: { keyId: 'key_g', windowAt }, address: null, tokens: 30 },
      { id: 'k2', cost: 1.25, budgets: { keyId: 'key_g', windowAt }, address: null, tokens: 0 },
      { id: 'a1', cost: 2, budgets: { user: { appUuid: app.appUuid, address: 'alice' }, windowAt }, address: 'alice', tokens: 12 },
      { id: 'a2', cost: 0.25, budgets: { keyId: 'key_g', user: { appUuid: app.appUuid, address: 'alice' }, windowAt }, address: 'alice', tokens: 8 },
      { id: 'n1', cost: 3, budgets: undefined, address: null, tokens: 5 },
    ];
    const held = await Promise.all(requests.map((r) => app.store.metering.hold(app.payer, credits(3), r.id, undefined, r.budgets)));
    const windows = held.map((hold) => {
      if (!hold.ok) throw new Error(`not held: ${JSON.stringify(hold)}`);
      return { ...(hold.budgets?.key ? { key: hold.budgets.key.windowStart } : {}), ...(hold.budgets?.user ? { user: hold.budgets.user.windowStart } : {}) };
    });
    const tokenKey = 'tokens:key:key_g';
    const settled = await Promise.all(
      requests.map((r, i) =>
        app.store.metering.settle(
          app.payer,
          credits(3),
          credits(r.cost),
          usageRow(app.appUuid, r.id, { costMicro: credits(r.cost), keyId: r.budgets?.keyId ?? null, address: r.address }),
          windows[i],
          { key: tokenKey, windowStart: 60_000, tokens: r.tokens },
        ),
      ),
    );
    expect(settled.map((s) => s.chargedMicro)).toEqual(requests.map((r) => credits(r.cost)));
    expect((await app.store.apiKeys.get(app.appUuid, 'key_g'))?.budget).toMatchObject({ spentMicro: credits(0.5 + 1.25 + 0.25), windowStart: day.start });
    const alice = await app.store.users.get(scope, 'alice');
    expect(alice?.spentMicro).toBe(credits(2.25));
    expect(alice?.budgetWindow).toEqual({ windowStart: day.start, spentMicro: credits(2.25) });
    expect(await app.store.rateCounters.get(tokenKey, 60_000)).toBe(30 + 12 + 8 + 5);
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(20 - 7), heldMicro: 0 });
    expect(await app.store.credits.check()).toEqual([]);
  });

  it('a sandbox request\'s charge is the sandbox user\'s spend, never the live user\'s of the same address, alone or in a group', async () => {
    const live = { appUuid: app.appUuid, livemode: true };
    const sandbox = { appUuid: app.appUuid, livemode: false };
    await app.store.users.update(live, 'carol', { creditLimitMicro: credits(8) }, STORE_TEST_AT);
    await app.store.users.update(sandbox, 'carol', { creditLimitMicro: credits(8) }, STORE_TEST_AT);
    const test = { kind: 'app' as const, appUuid: app.appUuid, test: true };
    await app.store.credits.grant(test, { amountMicro: credits(10), kind: 'test_grant', idempotencyKey: 'test:carol', at: STORE_TEST_AT });
    for (const id of ['s1', 's2', 's3']) expect(await app.store.metering.hold(test, credits(2), id, 'carol')).toEqual({ ok: true });
    const row = (id: string) => usageRow(app.appUuid, id, { costMicro: credits(1), livemode: false, address: 'carol' });
    // Two together (one statement on PostgreSQL), then one alone.
    await Promise.all(['s1', 's2'].map((id) => app.store.metering.settle(test, credits(2), credits(1), row(id))));
    await app.store.metering.settle(test, credits(2), credits(1), row('s3'));
    expect((await app.store.users.get(sandbox, 'carol'))?.spentMicro).toBe(credits(3));
    expect((await app.store.users.get(live, 'carol'))?.spentMicro).toBe(0);
    expect(await app.store.credits.check()).toEqual([]);
  });

  it('a refusal recorded twice is one row', async () => {
    const refused = usageRow(app.appUuid, 'refused-once', { status: 'refused', errorCode: 'rate_limit_exceeded', inputTokens: 0, outputTokens: 0 });
    await app.store.usage.record(refused);
    await app.store.usage.record(refused);
    expect(await requests()).toBe(1);
  });
});
