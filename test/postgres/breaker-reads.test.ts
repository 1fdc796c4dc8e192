import { describe, expect, it } from 'vitest';
import { BREAKER_READ_TTL_MS, createPostgresBreakers } from '../../server/store/postgres/breakers.js';
import { openPostgres } from '../../server/store/postgres/database.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * A breaker read answers again for a moment (a routed request is no round trip of its own): an
 * instance sees its own changes at once, another instance's within BREAKER_READ_TTL_MS.
 */
describe.skipIf(!testDatabaseUrl)('breaker reads on PostgreSQL', () => {
  it('another instance’s change shows once the read is older than its lifetime; an own change at once', async () => {
    const schema = await freshSchema();
    const sql = await openPostgres(schema.url, { poolSize: 2 });
    let ms = 0;
    const one = createPostgresBreakers(sql);
    const other = createPostgresBreakers(sql, () => ms);
    try {
      const open = { state: 'open' as const, failures: 0, windowStartMs: 1, sinceMs: 1 };
      expect(await other.read('t/m')).toBeNull();
      await one.update('t/m', () => open);
      expect(await other.read('t/m')).toBeNull();
      ms += BREAKER_READ_TTL_MS;
      expect(await other.read('t/m')).toMatchObject({ state: 'open' });
      const closed = { state: 'closed' as const, failures: 0, windowStartMs: 2, sinceMs: 2 };
      await other.update('t/m', () => closed);
      expect(await other.read('t/m')).toMatchObject({ state: 'closed' });
    } finally {
      await sql.end();
      await schema.drop();
    }
  });
});
