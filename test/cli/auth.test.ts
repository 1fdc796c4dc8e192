import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, readConfig, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const UNREACHABLE = 'http://127.0.0.1:1';

/** A fresh SVC_HOME, logged in to the test server with its live key. */
async function loggedInHome(): Promise<string> {
  const home = tempDir();
  const login = await runSvc(['auth', 'login', '--api-key', server.liveKey, '--api-url', server.url], { home });
  expect(login.code, explain(login)).toBe(0);
  return home;
}

describe('svc auth', () => {
  it('status exits 1 when logged out', async () => {
    const home = tempDir();
    const result = await runSvc(['auth', 'status'], { home });
    expect(result.code, explain(result)).toBe(1);
    expect(result.json()).toMatchObject({ logged_in: false, key: null, key_source: null });
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('login refuses a key the server does not accept and writes nothing', async () => {
    const home = tempDir();
    const result = await runSvc(['auth', 'login', '--api-key', `svc_live_${'B'.repeat(40)}`, '--api-url', server.url], { home });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr).toContain(server.url);
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('login writes nothing when the server cannot be reached (exit 3)', async () => {
    const home = tempDir();
    const result = await runSvc(['auth', 'login', '--api-key', server.liveKey, '--api-url', UNREACHABLE], { home });
    expect(result.code, explain(result)).toBe(3);
    expect(result.errorJson().error.message).toContain('svc serve');
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('login saves the key and URL in config.json, readable only by its owner', async () => {
    const home = join(tempDir(), 'not', 'yet', 'there');
    const result = await runSvc(['auth', 'login', '--api-key', server.liveKey, '--api-url', server.url], {
      home,
      env: { HOME: tempDir() },
    });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).not.toContain(server.liveKey);
    expect(readConfig(home)).toEqual({ api_key: server.liveKey, api_url: server.url });
    const stat = statSync(join(home, 'config.json'));
    expect((stat.mode & 0o777).toString(8)).toBe((0o600).toString(8));
  });

  it('after login, `svc api` works with no key or URL in the environment', async () => {
    const home = await loggedInHome();
    const result = await runSvc(['api', 'developer', 'apps', 'get', server.appUuid], { home });
    expect(result.code, explain(result)).toBe(0);
    expect(result.json().app_uuid).toBe(server.appUuid);
  });

  it('status shows the saved key, masked', async () => {
    const home = await loggedInHome();
    const result = await runSvc(['auth', 'status'], { home });
    expect(result.code, explain(result)).toBe(0);
    const status = result.json();
    expect(status).toMatchObject({ logged_in: true, api_url: server.url, key_source: 'config' });
    expect(status.key).toEqual(expect.any(String));
    expect(status.key.startsWith('svc_live_')).toBe(true);
    expect(result.stdout).not.toContain(server.liveKey);
    // Not even most of it.
    expect(result.stdout).not.toContain(server.liveKey.slice(9, 29));
  });

  it('SVC_API_KEY overrides the saved key', async () => {
    const home = await loggedInHome();
    const status = await runSvc(['auth', 'status'], { home, env: { SVC_API_KEY: server.testKey } });
    expect(status.code, explain(status)).toBe(0);
    expect(status.json()).toMatchObject({ logged_in: true, key_source: 'env' });
    expect(status.json().key.startsWith('svc_test_')).toBe(true);
    expect(status.stdout).not.toContain(server.testKey);

    // And it is the key requests use: an unknown one is refused although the saved one is good.
    const call = await runSvc(['api', 'developer', 'apps', 'list'], { home, env: { SVC_API_KEY: `svc_live_${'C'.repeat(40)}` } });
    expect(call.code, explain(call)).toBe(1);
    expect(call.errorJson().error.type).toBe('authentication_error');
  });

  it('SVC_API_URL overrides the saved URL, and --api-url overrides both', async () => {
    const home = await loggedInHome();
    const env = { SVC_API_URL: UNREACHABLE };

    const status = await runSvc(['auth', 'status'], { home, env });
    expect(status.json()).toMatchObject({ api_url: UNREACHABLE });
    const viaEnv = await runSvc(['api', 'developer', 'apps', 'list'], { home, env });
    expect(viaEnv.code, explain(viaEnv)).toBe(3);

    const viaFlag = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', server.url], { home, env });
    expect(viaFlag.code, explain(viaFlag)).toBe(0);
    const flagStatus = await runSvc(['auth', 'status', '--api-url', server.url], { home, env });
    expect(flagStatus.json()).toMatchObject({ api_url: server.url });

    // --api-url beats the file too.
    const overFile = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', UNREACHABLE], { home });
    expect(overFile.code, explain(overFile)).toBe(3);
  });

  it('logout removes the key; status then exits 1 and `svc api` asks to log in', async () => {
    const home = await loggedInHome();
    const logout = await runSvc(['auth', 'logout'], { home });
    expect(logout.code, explain(logout)).toBe(0);
    expect(readConfig(home)).not.toHaveProperty('api_key');
    expect(JSON.stringify(readConfig(home))).not.toContain(server.liveKey);

    const status = await runSvc(['auth', 'status'], { home });
    expect(status.code, explain(status)).toBe(1);
    expect(status.json()).toMatchObject({ logged_in: false });

    const call = await runSvc(['api', 'developer', 'apps', 'list'], { home });
    expect(call.code, explain(call)).toBe(2);
    expect(call.stderr).toContain('svc auth login');

    // Logging out twice is fine.
    expect((await runSvc(['auth', 'logout'], { home })).code).toBe(0);
  });

  it('login keeps other settings already in config.json', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ model: 'local/echo', future_setting: { a: 1 } }));
    const login = await runSvc(['auth', 'login', '--api-key', server.liveKey, '--api-url', server.url], { home });
    expect(login.code, explain(login)).toBe(0);
    expect(readConfig(home)).toEqual({ model: 'local/echo', future_setting: { a: 1 }, api_key: server.liveKey, api_url: server.url });
  });
});

describe('an invalid config file (exit 2, naming the file)', () => {
  const broken = [
    ['a wrong type', '{"api_url": 5}'],
    ['not JSON', '{not json'],
  ] as const;

  for (const [what, content] of broken) {
    for (const command of [
      ['auth', 'status'],
      ['auth', 'logout'],
      ['auth', 'login', '--api-key', 'svc_live_x'],
      ['api', 'developer', 'apps', 'list'],
    ]) {
      it(`${what}: svc ${command.join(' ')}`, async () => {
        const home = tempDir();
        const path = join(home, 'config.json');
        writeFileSync(path, content);
        const result = await runSvc(command, { home, env: { SVC_API_KEY: server.liveKey } });
        expect(result.code, explain(result)).toBe(2);
        expect(result.stderr).toContain(path);
        expect(result.stderr).not.toMatch(/^\s+at /m);
        expect(result.stdout).toBe('');
        if (command[1] === 'logout' || command[1] === 'login') expect(readFileSync(path, 'utf8')).toBe(content);
      });
    }
  }
});
