import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, readConfig, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, startTerminal } from '../helpers/tmux.js';

/**
 * `svc auth login` takes the key from standard input (--with-token) or a prompt that does not
 * echo it: a key given on the command line lands in the shell history and in `ps`.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const login = (args: string[], options: { home: string; input?: string }) =>
  runSvc(['auth', 'login', ...args, '--api-url', server.url], options);

describe('svc auth login --with-token', () => {
  it('reads the key from standard input, checks it and saves it', async () => {
    const home = tempDir();
    const result = await login(['--with-token'], { home, input: `  ${server.liveKey}\n` });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).not.toContain(server.liveKey);
    expect(readConfig(home)).toEqual({ api_key: server.liveKey, api_url: server.url });
    const apps = await runSvc(['api', 'developer', 'apps', 'get', server.appUuid], { home });
    expect(apps.code, explain(apps)).toBe(0);
  });

  it('refuses a key the server does not accept, and an empty standard input, writing nothing', async () => {
    const home = tempDir();
    const refused = await login(['--with-token'], { home, input: `svc_live_${'B'.repeat(40)}\n` });
    expect(refused.code, explain(refused)).toBe(1);
    expect(refused.stderr).toContain('refused this key');
    const empty = await login(['--with-token'], { home, input: '\n' });
    expect(empty.code, explain(empty)).toBe(2);
    expect(empty.stderr).toBe('svc: no key on standard input: `svc auth login --with-token < key.txt`.\n');
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('without a key and without a terminal, says how to give one (exit 2); one way at a time', async () => {
    const home = tempDir();
    const none = await login([], { home });
    expect(none.code, explain(none)).toBe(2);
    expect(none.stderr).toContain('`svc auth login --with-token < key.txt` reads it from standard input');
    const both = await login(['--with-token', '--api-key', server.liveKey], { home, input: server.liveKey });
    expect(both.code, explain(both)).toBe(2);
    expect(both.stderr).toContain('Give the key one way');
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('--api-key still works', async () => {
    const home = tempDir();
    const result = await login(['--api-key', server.liveKey], { home });
    expect(result.code, explain(result)).toBe(0);
    expect(readConfig(home)).toEqual({ api_key: server.liveKey, api_url: server.url });
  });
});

if (!hasTmux) console.warn('test/cli/auth-login.test.ts: tmux is not installed; the hidden prompt of svc auth login is not tested.');

/**
 * A server that holds the key check until told: while it waits, the typed key has been read, and
 * the screen shows whatever was echoed of it.
 */
async function heldServer() {
  let arrived!: () => void;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  const pending: ServerResponse[] = [];
  const seenKeys: string[] = [];
  const held = createServer((req, res) => {
    seenKeys.push(String(req.headers['x-api-key'] ?? req.headers.authorization ?? ''));
    pending.push(res);
    arrived();
  });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(held.address() as AddressInfo).port}`,
    requested,
    seenKeys,
    answer() {
      for (const res of pending.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], limit: 1, offset: 0, total: 0 }));
      }
    },
    close: () => new Promise<void>((resolve) => held.close(() => resolve())),
  };
}

describe.skipIf(!hasTmux)('svc auth login on a terminal (tmux)', () => {
  it('asks for the key without echoing it; Backspace edits', async () => {
    const home = tempDir();
    const held = await heldServer();
    const key = `svc_live_${'K'.repeat(40)}`;
    const terminal = startTerminal('login', ['auth', 'login', '--api-url', held.url], { columns: 100, rows: 10 }, { SVC_HOME: home });
    try {
      await terminal.showing('API key (not shown):');
      terminal.send(`${key}xy`, { literal: true });
      terminal.send('BSpace');
      terminal.send('BSpace');
      terminal.send('Enter');
      await held.requested;
      // The key has been read and sent: nothing of it is on the screen, the prompt line is bare.
      const screen = terminal.screen();
      expect(screen).not.toContain('svc_live_');
      expect(screen.split('\n').find((line) => line.includes('API key'))?.trimEnd()).toBe('API key (not shown):');
      expect(held.seenKeys).toEqual([key]);
      held.answer();
      expect(await terminal.exitCode()).toBe(0);
    } finally {
      terminal.close();
      await held.close();
    }
    expect(readConfig(home)).toEqual({ api_key: key, api_url: held.url });
  });

  it('Ctrl+C at the prompt saves nothing (exit 2)', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ model: 'local/echo' }));
    const terminal = startTerminal('login-cancel', ['auth', 'login', '--api-url', server.url], { columns: 100, rows: 10 }, { SVC_HOME: home });
    try {
      await terminal.showing('API key (not shown):');
      terminal.send(server.liveKey, { literal: true });
      terminal.send('C-c');
      expect(await terminal.exitCode()).toBe(2);
    } finally {
      terminal.close();
    }
    expect(readConfig(home)).toEqual({ model: 'local/echo' });
  });
});
