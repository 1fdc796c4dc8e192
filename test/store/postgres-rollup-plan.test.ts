import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Sql } from '../../server/store/postgres/database.js';
import { rollPendingStatement } from '../../server/store/postgres/usage.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * A roll reads the usage rows it takes by primary key, whatever the planner believes of the
 * tables: as a join, thousands of pending rows in the statistics made it a hash join over the
 * whole of usage_events at every roll, a cost that grows with every request ever served.
 */
describe.skipIf(!testDatabaseUrl)('the rollup statement on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let sql: Sql;

  beforeAll(async () => {
    schema = await freshSchema();
    sql = await openPostgres(schema.url, { poolSize: 1 });
    await sql`
      INSERT INTO usage_events (request_id, app_uuid, livemode, provider, model, operation, latency_ms, status, created_at)
      SELECT 'req_' || n, 'app', true, 'p', 'm', 'chat.completions', 1, 'ok', '2026-11-30T00:00:00.000Z' FROM generate_series(1, 20000) AS n`;
    await sql`INSERT INTO usage_pending (id) SELECT id FROM usage_events`;
    await sql`ANALYZE usage_events`;
    await sql`ANALYZE usage_pending`;
  });

  afterAll(async () => {
    await sql?.end();
    await schema?.drop();
  });

  it('takes its rows by primary key, never by reading usage_events whole, in a plan made for the limit and in a cached one', async () => {
    const { string } = await rollPendingStatement(sql, 2000).describe();
    for (const planCacheMode of ['auto', 'force_generic_plan']) {
      const plan = await sql.begin(async (tx) => {
        await tx.unsafe(`SET LOCAL plan_cache_mode = ${planCacheMode}`);
        return (await tx.unsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${string}`, [2000])).map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(plan).toMatch(/Index Scan using usage_events_pkey on usage_events/);
      expect(plan).not.toMatch(/Seq Scan on usage_events/);
      expect(plan).not.toMatch(/Seq Scan on usage_pending/);
    }
  });
});
