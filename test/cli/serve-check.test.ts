import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';

afterAll(() => removeTempDirs());

describe('svc serve --check', () => {
  it('exits 0 on a consistent ledger, 1 naming the accounts that are off, 2 without a database', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');
    const server = await startTestServer({ dbPath: db });
    await server.close();

    const sound = await runSvc(['serve', '--check', '--db', db], { home });
    expect(sound.code, explain(sound)).toBe(0);
    expect(sound.stdout).toContain('consistent');

    const raw = new Database(db);
    raw.prepare('UPDATE accounts SET balance_micro = balance_micro + 5').run();
    raw.close();
    const off = await runSvc(['serve', '--check', '--db', db], { home });
    expect(off.code, explain(off)).toBe(1);
    expect(off.stdout).toMatch(/off by 5/);

    const missing = await runSvc(['serve', '--check', '--db', join(tempDir(), 'none.db')], { home });
    expect(missing.code, explain(missing)).toBe(2);
  });
});
