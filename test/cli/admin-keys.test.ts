import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { manualClock } from '../../server/clock.js';
import { explain, mapLimit, readConfig, removeTempDirs, runSvc, startServe, tempDir, type RunResult, type ServeProcess } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

/**
 * The owner is never locked out: whoever can open the server's database issues a new key with
 * `svc admin keys create`, and the first start says so.
 */

const running: ServeProcess[] = [];
afterEach(() => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
});
afterAll(removeTempDirs);

/** A server on `db` for one check, with a clock that only moves when told. */
async function withServerOn<T>(db: string, check: (call: (method: string, path: string, key: string, body?: unknown) => Promise<Response>) => Promise<T>) {
  const server = await startServer({ dbPath: db, port: 0, clock: manualClock('2026-03-01T12:00:00.000Z'), log: () => {}, env: {} });
  try {
    return await check((method, path, key, body) =>
      fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  } finally {
    await server.close();
  }
}

describe('svc admin keys create', () => {
  it('gets an owner who lost config.json back in: the first start names the command, and its key works', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');
    const first = await startServe(['--port', '0', '--db', db], { home });
    running.push(first);
    await first.stop('SIGTERM');
    // The first start says where the key is and how to get another, with the --db it was given.
    const notice = /^The owner's admin key is saved in (\S+)\. Lost it\? `(svc admin keys create --developer (dev_[0-9a-f]{32}) --role admin --db (\S+))`, run where the database is, issues a new one\.$/m.exec(
      first.stdout(),
    );
    expect(notice, first.stdout()).not.toBeNull();
    const [, configPath, command, developerId, shownDb] = notice as unknown as string[];
    expect(configPath).toBe(join(home, 'config.json'));
    expect(shownDb).toBe(db);

    // The key is lost…
    rmSync(join(home, 'config.json'));
    // …the developer list finds the owner and their default app…
    const listed = await runSvc(['admin', 'developers', 'list', '--db', db], { home });
    expect(listed.code, explain(listed)).toBe(0);
    const [owner] = listed.json().data;
    expect(owner).toMatchObject({ developer_id: developerId, name: 'owner', apps: 1, default_app_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    // …and the printed command issues a new admin key for it, shown once.
    const issued = await runSvc((command as string).split(' ').slice(1), { home });
    expect(issued.code, explain(issued)).toBe(0);
    const key = issued.json();
    expect(key).toEqual({
      key_id: expect.stringMatching(/^key_/),
      name: 'issued by the operator',
      role: 'admin',
      is_test: false,
      developer_id: developerId,
      app_uuid: owner.default_app_uuid,
      created_app: false,
      secret: expect.stringMatching(/^svc_live_/),
    });

    await withServerOn(db, async (call) => {
      const apps = await call('GET', '/developer/apps', key.secret);
      expect(apps.status).toBe(200);
      expect(((await apps.json()) as { data: { app_uuid: string }[] }).data.map((a) => a.app_uuid)).toEqual([owner.default_app_uuid]);
      // An admin key: it manages the account, other keys included.
      expect((await call('POST', `/developer/apps/${owner.default_app_uuid}/api-keys`, key.secret, { name: 'ci' })).status).toBe(201);
    });
  });

  it('--app, --name and --test choose the key; a test key is inference or read_only', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');
    const server = await startTestServer({ dbPath: db });
    const second = (await server.call('POST', '/api/v1/developer/apps', { body: { name: 'Second' } })).body.app_uuid as string;
    await server.close();
    const developerId = (await runSvc(['admin', 'developers', 'list', '--db', db], { home })).json().data[0].developer_id;

    const issued = await runSvc(
      ['admin', 'keys', 'create', '--developer', developerId, '--role', 'inference', '--app', second.toUpperCase(), '--name', 'worker', '--test', '--db', db],
      { home },
    );
    expect(issued.code, explain(issued)).toBe(0);
    const key = issued.json();
    expect(key).toMatchObject({ name: 'worker', role: 'inference', is_test: true, app_uuid: second, secret: expect.stringMatching(/^svc_test_/) });
    await withServerOn(db, async (call) => {
      expect((await call('GET', '/credits/balance', key.secret)).status).toBe(200);
      expect((await call('GET', '/developer/apps', key.secret)).status).toBe(403);
    });
  });

  it('gives a developer who deleted every app a new default app to hold the key', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');
    await (await startTestServer({ dbPath: db })).close();
    const created = (await runSvc(['admin', 'developers', 'create', '--name', 'Gone', '--db', db], { home })).json();
    await withServerOn(db, async (call) => {
      expect((await call('DELETE', `/developer/apps/${created.app_uuid}`, created.admin_key)).status).toBe(200);
    });
    const issued = await runSvc(['admin', 'keys', 'create', '--developer', created.developer_id, '--role', 'admin', '--db', db], { home });
    expect(issued.code, explain(issued)).toBe(0);
    const key = issued.json();
    expect(key).toMatchObject({ created_app: true, role: 'admin' });
    expect(key.app_uuid).not.toBe(created.app_uuid);
    await withServerOn(db, async (call) => {
      expect((await call('GET', `/developer/apps/${key.app_uuid}`, key.secret)).status).toBe(200);
    });
  });

  it('refuses in one line: an unknown developer or app, another developer’s app, a bad role, a test admin key, a bad name', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');
    const server = await startTestServer({ dbPath: db });
    const ownerApp = server.appUuid;
    await server.close();
    const other = (await runSvc(['admin', 'developers', 'create', '--name', 'Other', '--db', db], { home })).json();
    const owner = (await runSvc(['admin', 'developers', 'list', '--db', db], { home })).json().data[0].developer_id as string;

    const cases: [string[], number, RegExp | null][] = [
      [['--developer', 'dev_nobody', '--role', 'admin'], 1, /^svc: no developer dev_nobody \(svc admin developers list shows them\)\n$/],
      [['--developer', owner, '--role', 'admin', '--app', '00000000-0000-4000-8000-000000000000'], 1, /has no app 00000000-0000-4000-8000-000000000000/],
      [['--developer', owner, '--role', 'admin', '--app', other.app_uuid], 1, new RegExp(`has no app ${other.app_uuid}`)],
      [['--developer', other.developer_id, '--role', 'admin', '--app', ownerApp], 1, new RegExp(`has no app ${ownerApp}`)],
      [['--developer', owner, '--role', 'owner'], 2, /^svc: --role must be inference, read_only, admin \(got "owner"\)\.\n$/],
      [['--developer', owner], 2, /^svc admin keys create: missing --role <role>\./],
      [['--developer', owner, '--role', 'admin', '--test'], 1, /A test key cannot be admin/],
      [['--developer', owner, '--role', 'admin', '--name', 'x'.repeat(101)], 1, /^svc: --name: /],
      [['--developer', owner, '--role', 'admin', '--name', 'tab\there'], 1, /control characters/],
    ];
    const results = await mapLimit(cases, 3, ([args]) => runSvc(['admin', 'keys', 'create', ...args, '--db', db], { home }));
    for (const [i, [args, code, message]] of cases.entries()) {
      const result = results[i] as RunResult;
      expect(result.code, `${args.join(' ')}: ${explain(result)}`).toBe(code);
      if (message) expect(result.stderr, args.join(' ')).toMatch(message);
      if (code === 1) expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stdout).not.toMatch(/svc_(live|test)_/);
    }
    const missing = await runSvc(['admin', 'keys', 'create', '--developer', owner, '--role', 'admin', '--db', join(tempDir(), 'none.db')], { home });
    expect(missing.code, explain(missing)).toBe(2);
    expect(missing.stderr).toMatch(/no database at/);
    expect(readConfig(home)).toBeUndefined();
  }, 60_000);
});
