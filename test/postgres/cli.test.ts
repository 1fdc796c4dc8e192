import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { latestPgVersion } from '../../server/store/postgres/database.js';
import { explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { emptySchema, freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/** The operator's commands against a PostgreSQL URL, and the one-line refusals of a bad one. */

afterAll(removeTempDirs);

/** The test database's URL with another user, database or schema. */
function variant(change: (url: URL) => void): string {
  const url = new URL(testDatabaseUrl!);
  change(url);
  return url.href;
}

describe.skipIf(!testDatabaseUrl)('svc admin and svc serve --check on PostgreSQL', () => {
  it('migrate, create and list developers, grant, and check the ledger', async () => {
    const schema = await freshSchema();
    try {
      const home = tempDir();
      const migrated = await runSvc(['admin', 'migrate', '--db', schema.url], { home });
      expect(migrated.code, explain(migrated)).toBe(0);
      expect(migrated.json()).toEqual({ schema_version: latestPgVersion() });

      const created = await runSvc(['admin', 'developers', 'create', '--name', 'Acme', '--db', schema.url], { home });
      expect(created.code, explain(created)).toBe(0);
      const appUuid = created.json().app_uuid as string;
      const listed = await runSvc(['admin', 'developers', 'list'], { home, env: { SVC_DATABASE_URL: schema.url } });
      expect(listed.code, explain(listed)).toBe(0);
      expect(listed.json()).toMatchObject({ total: 1, data: [{ name: 'Acme', apps: 1 }] });

      const granted = await runSvc(['admin', 'credits', 'grant', '--app', appUuid, '--credits', '12.5', '--db', schema.url], { home });
      expect(granted.code, explain(granted)).toBe(0);
      expect(granted.json()).toMatchObject({ granted_credits: 12.5, balance_credits: 12.5 });

      const check = await runSvc(['serve', '--check', '--db', schema.url], { home });
      expect(check.code, explain(check)).toBe(0);
      expect(check.stdout).toContain('= 12.5 credits in live balances');
    } finally {
      await schema.drop();
    }
  });

  it('a database with a newer schema is refused in one line, by serve and by the admin commands', async () => {
    const schema = await emptySchema();
    const sql = postgres(schema.url, { max: 1, onnotice: () => {} });
    try {
      const home = tempDir();
      expect((await runSvc(['admin', 'migrate', '--db', schema.url], { home })).code).toBe(0);
      await sql`INSERT INTO svc_schema (version, name) VALUES (999, 'from the future')`;
      for (const args of [['admin', 'migrate'], ['admin', 'developers', 'list'], ['serve', '--check'], ['serve', '--port', '0']]) {
        const result = await runSvc([...args, '--db', schema.url], { home });
        expect(result.code, `${args.join(' ')}: ${explain(result)}`).toBeGreaterThan(0);
        expect(result.stderr).toContain(`schema version 999, newer than this svc (${latestPgVersion()}); upgrade svc`);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    } finally {
      await sql.end();
      await schema.drop();
    }
  });

  it('wrong credentials and a missing database are one line each, naming what is wrong', async () => {
    const home = tempDir();
    const cases: [string, RegExp][] = [
      [variant((url) => (url.username = 'no_such_role')), /refused user "no_such_role"/],
      [variant((url) => (url.pathname = '/svc_no_such_database')), /has no such database/],
      [variant((url) => (url.hostname = '%ZZ')), /host is not valid percent-encoding/],
      [variant((url) => url.searchParams.set('host', 'a b')), /Not a host name: \?host="a b"/],
    ];
    for (const [url, message] of cases) {
      for (const args of [['admin', 'migrate'], ['serve', '--port', '0']]) {
        const result = await runSvc([...args, '--db', url], { home });
        expect(result.code, `${args.join(' ')} ${url}: ${explain(result)}`).toBeGreaterThan(0);
        expect(result.stderr).toMatch(message);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
  });

  it('a Unix-domain socket named as libpq names it is connected to, and a missing one is one line naming it', async (context) => {
    const home = tempDir();
    const missing = await runSvc(['serve', '--check', '--db', variant((url) => url.searchParams.set('host', '/no/such/dir'))], { home });
    expect(missing.code, explain(missing)).toBeGreaterThan(0);
    expect(missing.stderr.trim()).toBe('svc: Cannot reach PostgreSQL at /no/such/dir/.s.PGSQL.5432 (ENOENT). Is it running, and is the URL right?');

    // The test server's own socket, where it listens on one (a local PostgreSQL does by default).
    const admin = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
    const [directories] = await admin<{ unix_socket_directories: string }[]>`SHOW unix_socket_directories`;
    const [listening] = await admin<{ port: string }[]>`SHOW port`;
    await admin.end();
    const directory = directories?.unix_socket_directories.split(',')[0]?.trim() ?? '';
    const port = listening?.port ?? '5432';
    if (!directory.startsWith('/') || !existsSync(`${directory}/.s.PGSQL.${port}`)) context.skip();
    const schema = await freshSchema();
    try {
      const ways = [
        variant((url) => {
          url.searchParams.set('host', directory);
          url.searchParams.set('search_path', new URL(schema.url).searchParams.get('search_path')!);
        }),
        (() => {
          const url = new URL(schema.url);
          url.hostname = encodeURIComponent(directory);
          url.port = port;
          return url.href;
        })(),
      ];
      for (const url of ways) {
        const check = await runSvc(['serve', '--check', '--db', url], { home });
        expect(check.code, `${url}: ${explain(check)}`).toBe(0);
        expect(check.stdout).toContain('= 0 credits in live balances');
      }
    } finally {
      await schema.drop();
    }
  });
});
