import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/sqlite/database.js';
import { startTestServer } from '../helpers/server.js';

describe('database durability (SVC_DB_SYNCHRONOUS)', () => {
  it('syncs commits as asked: normal by default, full on request', () => {
    const normal = openDatabase(':memory:');
    const full = openDatabase(':memory:', 'full');
    // SQLite's numbers: 1 NORMAL, 2 FULL.
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
    expect(full.pragma('synchronous', { simple: true })).toBe(2);
    normal.close();
    full.close();
  });

  it('a server starts with full, and refuses a value it does not know', async () => {
    const server = await startTestServer({ env: { SVC_DB_SYNCHRONOUS: 'FULL' } });
    expect((await server.call('GET', '/api/v1/credits/balance')).status).toBe(200);
    await server.close();
    await expect(startTestServer({ env: { SVC_DB_SYNCHRONOUS: 'sometimes' } })).rejects.toThrow(/SVC_DB_SYNCHRONOUS must be normal or full/);
  });
});
