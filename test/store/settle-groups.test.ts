import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Payer, Store } from '../../server/store/types.js';
import { credits, describeEachBackend, newDeveloper, usageRow } from '../helpers/stores.js';

/**
 * Settlements that arrive together (one turn of the event loop) are written together, on both
 * backends (SQLite's group commit, PostgreSQL's one transaction per account): each is charged
 * exactly as it would be alone, and one that fails does not fail the others.
 */
describeEachBackend('settlements together', (backend) => {
  let store: Store;
  let close: () => Promise<void>;
  let payer: Payer;
  let appUuid: string;
  beforeEach(async () => {
    ({ store, close } = await backend.open());
    ({ appUuid } = await (await newDeveloper(store)).newApp(20));
    payer = { kind: 'app', appUuid };
  });
  afterEach(async () => close());

  const usage = (requestId: string, costMicro: number) => usageRow(appUuid, requestId, { costMicro });

  it('charges each of many settled at once exactly, releasing every hold, and the last one only what is left', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `together-${i}`);
    const holds = await Promise.all(ids.map((id) => store.metering.hold(payer, credits(1), id)));
    const held = ids.filter((_, i) => holds[i]?.ok);
    expect(held).toHaveLength(20);
    // 19 at 0.5 credits, and one that over-ran its bound: it takes what the balance has left beside the others.
    const costs = held.map((_, i) => (i === held.length - 1 ? credits(50) : credits(0.5)));
    const settled = await Promise.all(held.map((id, i) => store.metering.settle(payer, credits(1), costs[i] as number, usage(id, costs[i] as number))));
    expect(settled.slice(0, -1)).toEqual(Array.from({ length: 19 }, () => ({ chargedMicro: credits(0.5) })));
    expect(settled.at(-1)).toEqual({ chargedMicro: credits(20 - 9.5) });
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: 0, heldMicro: 0 });
    expect(await store.credits.check()).toEqual([]);
    expect((await store.credits.audit()).shortfalls.map((s) => s.requestId)).toEqual([held.at(-1)]);
  });

  it('one settlement that fails leaves the others of its group charged', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ids) expect((await store.metering.hold(payer, credits(1), id)).ok).toBe(true);
    // `b` twice in the same turn: its second charge would be a second ledger entry for one request.
    const outcomes = await Promise.allSettled(
      [...ids, 'b'].map((id) => store.metering.settle(payer, credits(1), credits(0.25), usage(id, credits(0.25)))),
    );
    const charged = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.chargedMicro : null));
    expect([charged[0], charged[2], charged[3]]).toEqual([credits(0.25), credits(0.25), credits(0.25)]);
    // `b` is charged once whatever either of its settlements answered: the balance says so.
    expect(await store.metering.balance(payer)).toMatchObject({ balanceMicro: credits(19), heldMicro: 0 });
    expect(await store.credits.check()).toEqual([]);
  });
});
