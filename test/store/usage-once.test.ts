import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../server/store/open.js';
import { pgMigrations } from '../../server/store/postgres/migrations.js';
import { migrations } from '../../server/store/sqlite/migrations.js';
import { backfillUsageRollupsSql } from '../../server/store/usage-backfill.js';
import { USAGE_ROLLUPS } from '../../server/store/usage-rollups.js';
import type { Payer } from '../../server/store/types.js';
import { emptySchema, freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { credits, newDeveloper, STORE_TEST_AT, usageRow } from '../helpers/stores.js';

/**
 * A request has one usage row, and a settlement that finds it written moves no money (the cases
 * on both backends are in settle-groups.test.ts): two instances settling one request at the same
 * moment charge it once. Databases written before keep the first row of each request, with
 * rollups that hold exactly the rows left.
 */
describe.skipIf(!testDatabaseUrl)('a request settles once on two instances at the same moment [postgres]', () => {
  it('whichever commits first charges it; the other answers that charge and writes nothing', async () => {
    const schema = await freshSchema();
    const first = await openStore(schema.url, { poolSize: 2 });
    const second = await openStore(schema.url, { poolSize: 2 });
    try {
      const { appUuid } = await (await newDeveloper(first)).newApp(10);
      const payer: Payer = { kind: 'app', appUuid };
      for (let i = 0; i < 20; i++) {
        const id = `both-${i}`;
        expect((await first.metering.hold(payer, credits(0.2), id)).ok).toBe(true);
        const event = usageRow(appUuid, id, { costMicro: credits(0.1) });
        const answers = await Promise.all([first, second].map((store) => store.metering.settle(payer, credits(0.2), credits(0.1), event)));
        expect(answers).toEqual([{ chargedMicro: credits(0.1) }, { chargedMicro: credits(0.1) }]);
      }
      expect(await first.metering.balance(payer)).toEqual({ balanceMicro: credits(8), heldMicro: 0 });
      expect(await first.credits.check()).toEqual([]);
      const window = { appUuid, livemode: true, start: '2026-11-25T00:00:00.000Z', end: '2026-11-26T00:00:00.000Z' };
      expect((await first.usage.byModel(window))[0]?.requests).toBe(20);
    } finally {
      await first.close();
      await second.close();
      await schema.drop();
    }
  });
});

/** Duplicate rows as the bug left them: a request's row twice (nothing charged the second time), and one three times. */
const DUPLICATED = `
  INSERT INTO usage_events (request_id, app_uuid, livemode, key_id, address, provider, model, operation, input_tokens, output_tokens,
      cost_micro, charged_micro, latency_ms, status, created_at)
    VALUES ('r1', 'app', TRUE, 'key', NULL, 'p', 'm', 'chat', 10, 5, 700, 700, 1, 'ok', '${STORE_TEST_AT}'),
           ('r2', 'app', TRUE, NULL, '0xabc', 'p', 'm', 'chat', 20, 6, 900, 900, 1, 'ok', '${STORE_TEST_AT}'),
           ('r1', 'app', TRUE, 'key', NULL, 'p', 'm', 'chat', 10, 5, 700, 0, 1, 'ok', '${STORE_TEST_AT}'),
           ('r3', 'app', TRUE, NULL, '0xabc', 'p', 'm2', 'chat', 30, 7, 0, 0, 1, 'refused', '2026-11-24T23:00:00.000Z'),
           ('r3', 'app', TRUE, NULL, '0xabc', 'p', 'm2', 'chat', 30, 7, 0, 0, 1, 'refused', '2026-11-24T23:00:00.000Z'),
           ('r3', 'app', TRUE, NULL, '0xabc', 'p', 'm2', 'chat', 30, 7, 0, 0, 1, 'refused', '2026-11-24T23:00:00.000Z');
  ${backfillUsageRollupsSql}`;

/** Each rollup's rows, and what a rebuild from the usage rows gives. */
const rollupQueries = USAGE_ROLLUPS.map((rollup) => ({
  stored: `SELECT * FROM ${rollup.table} WHERE requests > 0 ORDER BY 1, 2, 3, 4`,
  table: rollup.table,
}));

describe('duplicate usage rows of old databases', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('SQLite 24 keeps each request its first row, and rollups that hold exactly the rows left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-usage-once-'));
    const file = join(dir, 'svc.db');
    const old = new Database(file);
    old.pragma('foreign_keys = OFF');
    for (const migration of migrations.filter((m) => m.version <= 23)) old.exec(migration.sql);
    old.pragma('user_version = 23');
    old.exec(DUPLICATED.replaceAll('TRUE', '1'));
    old.close();

    await (await openStore(file)).close();
    const db = new Database(file);
    try {
      expect(db.prepare('SELECT request_id, charged_micro FROM usage_events ORDER BY id').all()).toEqual([
        { request_id: 'r1', charged_micro: 700 },
        { request_id: 'r2', charged_micro: 900 },
        { request_id: 'r3', charged_micro: 0 },
      ]);
      const stored = rollupQueries.map((query) => db.prepare(query.stored).all());
      db.exec(`${rollupQueries.map((query) => `DELETE FROM ${query.table};`).join('')}${backfillUsageRollupsSql}`);
      expect(stored).toEqual(rollupQueries.map((query) => db.prepare(query.stored).all()));
      expect(stored[1]).toHaveLength(2);
    } finally {
      db.close();
    }
  });

  it.skipIf(!testDatabaseUrl)('PostgreSQL 13 does the same', async () => {
    const schema = await emptySchema();
    const sql = postgres(schema.url, { max: 1, onnotice: () => {} });
    try {
      await sql.begin(async (tx) => {
        await tx`CREATE TABLE svc_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
        for (const migration of pgMigrations.filter((m) => m.version <= 12)) {
          await tx.unsafe(migration.sql);
          await tx`INSERT INTO svc_schema (version, name) VALUES (${migration.version}, ${migration.name})`;
        }
        await tx.unsafe(DUPLICATED);
      });
      await (await openStore(schema.url, { poolSize: 1 })).close();
      expect(await sql`SELECT request_id, charged_micro::int AS charged_micro FROM usage_events ORDER BY id`).toEqual([
        { request_id: 'r1', charged_micro: 700 },
        { request_id: 'r2', charged_micro: 900 },
        { request_id: 'r3', charged_micro: 0 },
      ]);
      const read = () => sql.begin(async (tx) => Promise.all(rollupQueries.map((query) => tx.unsafe(query.stored).then((rows) => [...rows]))));
      const stored = await read();
      await sql.unsafe(`${rollupQueries.map((query) => `DELETE FROM ${query.table};`).join('')}${backfillUsageRollupsSql}`);
      expect(stored).toEqual(await read());
      expect(stored[1]).toHaveLength(2);
    } finally {
      await sql.end();
      await schema.drop();
    }
  });
});
