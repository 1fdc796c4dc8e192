import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { explain, readConfig, removeTempDirs, runSvc, startServe, tempDir, type RunOptions, type ServeProcess } from '../helpers/cli.js';

const running: ServeProcess[] = [];
afterEach(async () => {
  // A failed test must not leave a server behind.
  for (const serve of running.splice(0)) if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
});
afterAll(removeTempDirs);

async function serve(args: string[], options: RunOptions): Promise<ServeProcess> {
  const started = await startServe(args, options);
  running.push(started);
  return started;
}

const LIVE = /^ {2}live key: (svc_live_\S+)$/gm;
const TEST = /^ {2}test key: (svc_test_\S+)$/gm;

/** The keys a first start printed; asserts each appears exactly once. */
function printedKeys(stdout: string): { live: string; test: string } {
  const live = [...stdout.matchAll(LIVE)].map((m) => m[1] as string);
  const test = [...stdout.matchAll(TEST)].map((m) => m[1] as string);
  expect(live, stdout).toHaveLength(1);
  expect(test, stdout).toHaveLength(1);
  expect(stdout.split(live[0] as string)).toHaveLength(2);
  expect(stdout.split(test[0] as string)).toHaveLength(2);
  return { live: live[0] as string, test: test[0] as string };
}

describe('svc serve', () => {
  it('bootstraps an empty database once, saves the live key, serves the CLI, and stops on SIGTERM/SIGINT', async () => {
    const home = tempDir();
    const db = join(tempDir(), 'server.db');

    const first = await serve(['--port', '0', '--db', db], { home });
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.stdout()).toContain(`svc server listening on ${first.url}\n`);
    const keys = printedKeys(first.stdout());

    // No key was saved: the live key now is, readable only by the owner; a port picked for
    // this start (--port 0) is not saved as the address to use.
    expect(readConfig(home)).toEqual({ api_key: keys.live });
    expect((statSync(join(home, 'config.json')).mode & 0o777).toString(8)).toBe('600');

    // `svc api` works with the saved key: the default app, with its starting grant.
    const list = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', first.url], { home });
    expect(list.code, explain(list)).toBe(0);
    const apps = list.json();
    expect(apps.total).toBe(1);
    expect(apps.data).toHaveLength(1);
    expect(apps.data[0]).toMatchObject({ balance_credits: 100 });
    expect(first.stdout()).toContain(apps.data[0].app_uuid);

    // The test key printed works too, for inference; it cannot manage apps.
    const withTestKey = await runSvc(['api', 'credits', 'balance', '--api-url', first.url], {
      home: tempDir(),
      env: { SVC_API_KEY: keys.test },
    });
    expect(withTestKey.code, explain(withTestKey)).toBe(0);
    const managing = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', first.url], {
      home: tempDir(),
      env: { SVC_API_KEY: keys.test },
    });
    expect(managing.code, explain(managing)).toBe(1);
    expect(managing.errorJson().error.code).toBe('insufficient_role');

    expect(await first.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    // Same database again: no new keys, nothing printed about them, the saved config untouched.
    const configBefore = readFileSync(join(home, 'config.json'), 'utf8');
    const second = await serve(['--port', '0', '--db', db], { home });
    expect(second.stdout()).not.toMatch(/svc_(live|test)_/);
    expect(second.stdout()).not.toContain('Created');
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(configBefore);
    const again = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', second.url], { home });
    expect(again.code, explain(again)).toBe(0);
    expect(again.json().data.map((a: { app_uuid: string }) => a.app_uuid)).toEqual([apps.data[0].app_uuid]);
    expect(await second.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('--starting-credits sets the default app’s grant', async () => {
    const home = tempDir();
    const server = await serve(['--port', '0', '--db', join(tempDir(), 'server.db'), '--starting-credits', '5'], { home });
    const list = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', server.url], { home });
    expect(list.code, explain(list)).toBe(0);
    expect(list.json().data[0]).toMatchObject({ balance_credits: 5 });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  it('says how live money comes in: off by default, the sandbox with --payments sandbox; /health says it too', async () => {
    const off = await serve(['--port', '0', '--db', join(tempDir(), 'server.db')], { home: tempDir() });
    expect(off.stdout()).toContain('Live payments are off (no Stripe keys): grant credits with `svc admin credits grant`.');
    expect(((await (await fetch(`${off.url}/health`)).json()) as { payments: string }).payments).toBe('off');
    await off.stop('SIGTERM');
    const sandbox = await serve(['--port', '0', '--db', join(tempDir(), 'server.db'), '--payments', 'sandbox'], { home: tempDir() });
    expect(sandbox.stdout()).toContain('Live payments go through the sandbox processor: development only, no real money moves.');
    expect(((await (await fetch(`${sandbox.url}/health`)).json()) as { payments: string }).payments).toBe('sandbox');
    await sandbox.stop('SIGTERM');
    const wrong = await runSvc(['serve', '--payments', 'free', '--port', '0'], { home: tempDir() });
    expect(wrong.code, explain(wrong)).toBe(2);
  });

  it('keeps a key that is already saved (and prints the new ones)', async () => {
    const home = tempDir();
    const saved = { api_key: `svc_live_${'D'.repeat(40)}`, api_url: 'http://127.0.0.1:9', model: 'local/echo' };
    writeFileSync(join(home, 'config.json'), JSON.stringify(saved));
    const server = await serve(['--port', '0', '--db', join(tempDir(), 'server.db')], { home });
    const keys = printedKeys(server.stdout());
    expect(readConfig(home)).toEqual(saved);

    const list = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', server.url], { home, env: { SVC_API_KEY: keys.live } });
    expect(list.code, explain(list)).toBe(0);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  it.each([['--port', '99999'], ['--port', 'abc'], ['--starting-credits', 'abc'], ['--starting-credits=-1']])(
    'refuses %s with exit 2',
    async (...args: string[]) => {
      const home = tempDir();
      const result = await runSvc(['serve', '--db', join(tempDir(), 'server.db'), ...args], { home });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stdout).not.toContain('listening');
      expect(readConfig(home)).toBeUndefined();
    },
  );

  it('exits 2 when the database cannot be opened', async () => {
    const home = tempDir();
    const result = await runSvc(['serve', '--port', '0', '--db', join(tempDir(), 'missing', 'dir', 'server.db')], { home });
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain('cannot start the server');
  });

  describe('when the port is taken', () => {
    let blocker: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
      blocker = undefined;
    });

    async function takenPort(): Promise<number> {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
      return (blocker.address() as AddressInfo).port;
    }

    it('exits 2 and says why, naming the process that holds the port', async () => {
      const home = tempDir();
      const port = await takenPort();
      const result = await runSvc(['serve', '--port', String(port), '--db', join(tempDir(), 'server.db')], { home });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toContain(`port ${port} is in use by process ${process.pid} (`);
      expect(result.stdout).not.toContain('listening');
    });

    it('does not use up the one-time keys of an empty database', async () => {
      const home = tempDir();
      const db = join(tempDir(), 'server.db');
      const port = await takenPort();
      const failed = await runSvc(['serve', '--port', String(port), '--db', db], { home });
      expect(failed.code, explain(failed)).toBe(2);

      const server = await serve(['--port', '0', '--db', db], { home });
      try {
        printedKeys(server.stdout());
        expect(readConfig(home)).toMatchObject({ api_key: expect.stringMatching(/^svc_live_/) });
      } finally {
        expect(await server.stop()).toEqual({ code: 0, signal: null });
      }
    });
  });
});
