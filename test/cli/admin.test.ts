import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { manualClock } from '../../server/clock.js';
import { startTestServer } from '../helpers/server.js';
import { explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';

afterAll(() => removeTempDirs());

/** A server database made the way `svc serve` makes it (the owner bootstrapped), then closed. */
async function serverDatabase() {
  const db = join(tempDir(), 'server.db');
  const server = await startTestServer({ dbPath: db });
  const owner = { appUuid: server.appUuid, key: server.liveKey };
  await server.close();
  return { db, owner };
}

describe('svc admin developers', () => {
  it('creates developers on the database, each with an admin key shown once, and lists them', async () => {
    const home = tempDir();
    const { db, owner } = await serverDatabase();

    const created = await runSvc(['admin', 'developers', 'create', '--name', 'Acme', '--db', db], { home });
    expect(created.code, explain(created)).toBe(0);
    const acme = created.json();
    expect(acme).toMatchObject({
      developer_id: expect.stringMatching(/^dev_[0-9a-f]{32}$/),
      name: 'Acme',
      app_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      admin_key: expect.stringMatching(/^svc_live_[A-Za-z0-9]{40}$/),
    });

    const listed = await runSvc(['admin', 'developers', 'list', '--db', db], { home });
    expect(listed.code, explain(listed)).toBe(0);
    expect(listed.json().data.map((d: { name: string; apps: number }) => [d.name, d.apps])).toEqual([
      ['owner', 1],
      ['Acme', 1],
    ]);
    expect(listed.stdout).not.toMatch(/svc_live_/);

    // On the server, the new developer sees only their own app, and the owner's is a 404.
    const server = await startServer({ dbPath: db, port: 0, clock: manualClock('2026-03-01T12:00:00.000Z'), log: () => {}, env: {} });
    try {
      expect(server.bootstrap).toBeNull();
      const call = (path: string, key: string) => fetch(`${server.url}/api/v1${path}`, { headers: { 'x-api-key': key } });
      const apps = (await (await call('/developer/apps', acme.admin_key)).json()) as { data: { app_uuid: string }[] };
      expect(apps.data.map((a) => a.app_uuid)).toEqual([acme.app_uuid]);
      expect((await call(`/developer/apps/${owner.appUuid}`, acme.admin_key)).status).toBe(404);
      expect((await call(`/developer/apps/${acme.app_uuid}`, owner.key)).status).toBe(404);
      const key = await fetch(`${server.url}/api/v1/developer/apps/${acme.app_uuid}/api-keys`, {
        method: 'POST',
        headers: { 'x-api-key': acme.admin_key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci', role: 'inference' }),
      });
      expect(key.status).toBe(201);
    } finally {
      await server.close();
    }
  });

  it('refuses a missing or blank name, a missing database and a newer schema, in one line each', async () => {
    const home = tempDir();
    const { db } = await serverDatabase();

    const blank = await runSvc(['admin', 'developers', 'create', '--name', '  ', '--db', db], { home });
    expect(blank.code, explain(blank)).toBe(2);
    expect(blank.stderr).toMatch(/--name must be 1 to 100 characters/);

    const noName = await runSvc(['admin', 'developers', 'create', '--db', db], { home });
    expect(noName.code, explain(noName)).toBe(2);

    const missing = await runSvc(['admin', 'developers', 'list', '--db', join(tempDir(), 'none.db')], { home });
    expect(missing.code, explain(missing)).toBe(2);
    expect(missing.stderr).toMatch(/^svc: no database at .*none\.db/);

    const raw = new Database(db);
    raw.pragma('user_version = 999');
    raw.close();
    const newer = await runSvc(['admin', 'developers', 'list', '--db', db], { home });
    expect(newer.code, explain(newer)).toBe(1);
    expect(newer.stderr.trim().split('\n')).toHaveLength(1);
    expect(newer.stderr).toMatch(/newer than this server/);
  });

  it('uses the database in SVC_HOME by default, like svc serve', async () => {
    const home = tempDir();
    const server = await startTestServer({ dbPath: join(home, 'server.db') });
    await server.close();
    const listed = await runSvc(['admin', 'developers', 'list'], { home });
    expect(listed.code, explain(listed)).toBe(0);
    expect(listed.json().total).toBe(1);
  });
});

describe('svc admin credits grant', () => {
  it('grants to an app or to the promotions account, each a source the conservation check counts', async () => {
    const home = tempDir();
    const { db, owner } = await serverDatabase();
    const toApp = await runSvc(['admin', 'credits', 'grant', '--app', owner.appUuid, '--credits', '250.5', '--reason', 'pilot', '--db', db], { home });
    expect(toApp.code, explain(toApp)).toBe(0);
    expect(toApp.json()).toEqual({ granted_credits: 250.5, to: { app_uuid: owner.appUuid }, balance_credits: 350.5 });
    const toPromotions = await runSvc(['admin', 'credits', 'grant', '--promotions', '--credits', '1000', '--db', db], { home });
    expect(toPromotions.code, explain(toPromotions)).toBe(0);
    expect(toPromotions.json()).toMatchObject({ to: 'promotions', balance_credits: 1000 });

    const check = await runSvc(['serve', '--check', '--db', db], { home });
    expect(check.code, explain(check)).toBe(0);
    expect(check.stdout).toContain('+ 1350.5 credits from operator_grant');
    expect(check.stdout).toContain('= 1350.5 credits in live balances');
  });

  it('refuses a grant without one target, an unknown app, or an amount out of bounds', async () => {
    const home = tempDir();
    const { db, owner } = await serverDatabase();
    const cases: [string[], number, RegExp | null][] = [
      [['--credits', '5'], 2, /either --app <app-uuid> or --promotions/],
      [['--app', owner.appUuid, '--promotions', '--credits', '5'], 2, /either --app/],
      [['--app', '00000000-0000-4000-8000-000000000000', '--credits', '5'], 1, /no app 00000000/],
      [['--promotions', '--credits', '0'], 2, null],
      [['--promotions', '--credits', '-5'], 2, null],
      [['--promotions', '--credits', '1000000001'], 2, null],
      [['--promotions', '--credits', 'lots'], 2, null],
      [['--promotions', '--credits', '5', '--reason', 'x'.repeat(201)], 2, /at most 200/],
    ];
    for (const [args, code, message] of cases) {
      const result = await runSvc(['admin', 'credits', 'grant', ...args, '--db', db], { home });
      expect(result.code, `${args.join(' ')}: ${explain(result)}`).toBe(code);
      if (message) expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    const check = await runSvc(['serve', '--check', '--db', db], { home });
    expect(check.stdout).toContain('= 100 credits in live balances');
  });
});


describe('--db with a database URL', () => {
  const commands: [string, string[]][] = [
    ['serve', ['serve', '--port', '0']],
    ['serve --check', ['serve', '--check']],
    ['admin developers list', ['admin', 'developers', 'list']],
    ['admin credits grant', ['admin', 'credits', 'grant', '--promotions', '--credits', '1']],
    ['admin migrate', ['admin', 'migrate']],
  ];

  it.each(commands)('svc %s refuses a URL of another database in one line, exit 2', async (_, args) => {
    const result = await runSvc([...args, '--db', 'mysql://root@127.0.0.1:3306/svc'], { home: tempDir() });
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toBe(
      'svc: mysql://… is not a database svc can use: give a SQLite file (--db /path/to/server.db) or a PostgreSQL URL (postgres://user@host:5432/db).\n',
    );
  });

  it.each(commands)('svc %s says in one line that a PostgreSQL URL is malformed or unreachable', async (_, args) => {
    const cases: [string, RegExp][] = [
      ['postgres://user@:5432/svc', /Not a database URL: "postgres:\/\/user@:5432\/svc"/],
      ['postgres:///svc', /names no host/],
      // The password is never printed back.
      ['postgres://user:s3cret@:5432/svc', /Not a database URL: "postgres:\/\/user:\*\*\*@:5432\/svc"/],
      ['postgres://postgres@127.0.0.1:5432', /names no database/],
      ['postgres://postgres@127.0.0.1:9/svc', /Cannot reach PostgreSQL at 127\.0\.0\.1:9 \(ECONNREFUSED\)/],
    ];
    for (const [url, message] of cases) {
      const result = await runSvc([...args, '--db', url], { home: tempDir() });
      expect(result.code, `${url}: ${explain(result)}`).toBeGreaterThan(0);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
    }
  });

  it('svc serve refuses a pool of fewer than two connections (SVC_PG_POOL) before connecting', async () => {
    for (const pool of ['1', 'ten']) {
      const result = await runSvc(['serve', '--port', '0', '--db', 'postgres://postgres@127.0.0.1:9/svc'], { home: tempDir(), env: { SVC_PG_POOL: pool } });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toBe(`svc: cannot start the server: SVC_PG_POOL must be a whole number from 2 to 1000 (got "${pool}").\n`);
    }
  });

  it('SVC_DATABASE_URL is the database when --db is not given', async () => {
    const result = await runSvc(['admin', 'migrate'], { home: tempDir(), env: { SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:9/svc' } });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toMatch(/Cannot reach PostgreSQL at 127\.0\.0\.1:9/);
  });
});

describe('svc admin migrate', () => {
  it('brings a SQLite database up to date and says its version; a newer one is refused in one line', async () => {
    const home = tempDir();
    const { db } = await serverDatabase();
    const migrated = await runSvc(['admin', 'migrate', '--db', db], { home });
    expect(migrated.code, explain(migrated)).toBe(0);
    expect(migrated.json()).toEqual({ schema_version: expect.any(Number) });
    const raw = new Database(db);
    raw.pragma('user_version = 999');
    raw.close();
    const newer = await runSvc(['admin', 'migrate', '--db', db], { home });
    expect(newer.code, explain(newer)).toBe(1);
    expect(newer.stderr.trim().split('\n')).toHaveLength(1);
    expect(newer.stderr).toMatch(/newer than this server/);
  });
});
