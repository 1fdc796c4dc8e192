import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, describe } from 'vitest';
import { openStore } from '../../server/store/open.js';
import type { Payer, Store } from '../../server/store/types.js';
import { credits, newDeveloper, usageRow } from '../helpers/stores.js';

/**
 * SQLite's group commit when the group's COMMIT itself fails (a disk error, a constraint checked
 * at commit): every settlement of the group is rolled back and rejected, and each request's hold
 * ends exactly once — the other requests' holds on the account stay whole. (SQLite only: its holds
 * are in memory beside the transaction; PostgreSQL's are rows rolled back with it.)
 *
 * The failure is a real one: a second connection adds a trigger that, for one request id, inserts a
 * row breaking a foreign key checked only at COMMIT (DEFERRABLE INITIALLY DEFERRED).
 */
describe('SQLite group commit whose COMMIT fails', () => {
  let dir = '';
  let store: Store;
  let payer: Payer;
  let file = '';

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-group-commit-'));
    file = join(dir, 'svc.db');
    store = await openStore(file);
    const app = await (await newDeveloper(store)).newApp(20);
    payer = { kind: 'app', appUuid: app.appUuid };
    const other = new Database(file);
    other.exec(`
      CREATE TABLE commit_poison (account_id INTEGER REFERENCES accounts(id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER commit_poison_on_usage AFTER INSERT ON usage_events WHEN NEW.request_id = 'poison'
        BEGIN INSERT INTO commit_poison (account_id) VALUES (-1); END;`);
    other.close();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects every settlement of the group and ends each of their holds once, leaving the others held', async () => {
    // One request still running (5 credits held) and two settling together, one of which fails the COMMIT.
    for (const [id, held] of [['running', 5], ['ok', 1], ['poison', 1]] as const) {
      expect((await store.metering.hold(payer, credits(held), id)).ok).toBe(true);
    }
    const settle = (id: string) => store.metering.settle(payer, credits(1), credits(0.5), usageRow(payer.kind === 'app' ? payer.appUuid : '', id, { costMicro: credits(0.5) }));
    const outcomes = await Promise.allSettled([settle('ok'), settle('poison')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    // Nothing was charged, and the running request still holds its 5 credits.
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: credits(20), heldMicro: credits(5) });
    // So a new hold may take the 15 left beside it, and not a micro-credit more.
    expect((await store.metering.hold(payer, credits(15) + 1, 'greedy')).ok).toBe(false);
    expect((await store.metering.hold(payer, credits(15), 'fits')).ok).toBe(true);
  });

  it('a settlement after the failed group is written and charged as usual', async () => {
    expect((await store.metering.hold(payer, credits(1), 'poison')).ok).toBe(true);
    expect((await store.metering.hold(payer, credits(1), 'later')).ok).toBe(true);
    const appUuid = payer.kind === 'app' ? payer.appUuid : '';
    await expect(store.metering.settle(payer, credits(1), credits(0.5), usageRow(appUuid, 'poison', { costMicro: credits(0.5) }))).rejects.toThrow(/FOREIGN KEY/);
    expect(await store.metering.settle(payer, credits(1), credits(0.5), usageRow(appUuid, 'later', { costMicro: credits(0.5) }))).toEqual({ chargedMicro: credits(0.5) });
    expect(await store.metering.balance(payer)).toEqual({ balanceMicro: credits(19.5), heldMicro: 0 });
    expect(await store.credits.check()).toEqual([]);
  });
});
