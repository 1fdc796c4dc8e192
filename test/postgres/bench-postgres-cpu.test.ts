import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresCpuSeconds } from '../bench/lib/processes.js';
import { testDatabaseUrl } from '../helpers/postgres.js';

/**
 * The bench's `db cpu/req` for svc on PostgreSQL: the CPU time of every PostgreSQL process on
 * this machine, read from /proc, which must count the work of the backend that serves a query.
 */
describe("the bench's count of PostgreSQL's CPU", () => {
  const sql = postgres(testDatabaseUrl ?? '', { max: 1, onnotice: () => {} });
  afterAll(() => sql.end());

  it('counts the CPU a query costs its backend', async () => {
    await sql`SELECT 1`;
    const before = postgresCpuSeconds();
    await sql`SELECT count(*) FROM generate_series(1, 5000000)`;
    const spent = postgresCpuSeconds() - before;
    expect(spent).toBeGreaterThanOrEqual(0.1);
    expect(spent).toBeLessThan(30);
  });
});
