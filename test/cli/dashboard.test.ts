import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** `svc dashboard` as a process: without a terminal it refuses; in one (tmux) it draws and quits. */

afterAll(() => removeTempDirs());

describe('svc dashboard without a terminal', () => {
  const home = tempDir();

  it('refuses in one line on stderr that points to svc api, and exits 2', async () => {
    for (const args of [['dashboard'], ['dashboard', 'usage']]) {
      const result = await runSvc(args, { home, env: { SVC_API_KEY: 'svc_live_' + 'A'.repeat(40) } });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')).toHaveLength(2);
      expect(result.stderr).toMatch(/^svc dashboard needs a terminal .*`svc api …`.*\n$/);
    }
  });

  it('an unknown screen is a usage error that lists the screens', async () => {
    const result = await runSvc(['dashboard', 'nope'], { home });
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain('Unknown screen "nope": one of apps, keys, users, usage, credits, subscription.');
  });

  it('--help names the screens and the keys', async () => {
    const result = await runSvc(['dashboard', '--help'], { home });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toContain('Screens: apps, keys, users, usage, credits, subscription');
    expect(result.stdout).toContain('svc dashboard usage');
  });
});

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('test/cli/dashboard.test.ts: tmux is not installed; the terminal test of svc dashboard is skipped.');

describe.skipIf(!hasTmux)('svc dashboard in an 80×24 terminal (tmux)', () => {
  const id = `svc-dashboard-test-${process.pid}-${Date.now().toString(36)}`;
  /** tmux on a socket of this test's own, ignoring the user's config. */
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', id, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', id).stdout;
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  async function poll(what: string, done: () => boolean) {
    for (let i = 0; i < 200; i++) {
      if (done()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
  }
  const showing = (text: string) => poll(JSON.stringify(text), () => screen().includes(text));

  let server: TestServer;
  let exitFile: string;
  beforeAll(async () => {
    server = await startTestServer();
    const home = tempDir();
    exitFile = join(home, 'exit-code');
    const command = `${quote(process.execPath)} ${quote(BIN)} dashboard --api-url ${server.url}; echo $? > ${quote(exitFile)}`;
    const started = spawnSync('tmux', ['-L', id, '-f', '/dev/null', 'new-session', '-d', '-s', id, '-x', '80', '-y', '24', command], {
      env: { ...childEnv(home, { SVC_API_KEY: server.liveKey }), TERM: 'xterm-256color' },
      encoding: 'utf8',
    });
    if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  });
  afterAll(async () => {
    tmux('kill-session', '-t', id);
    tmux('kill-server');
    await server?.close();
  });

  it('draws the apps within the terminal, switches screens, and quits with q (exit 0)', async () => {
    await showing('Default app');
    const lines = screen().split('\n');
    // The whole frame is on the screen: the tabs on the first line, the keys on the last drawn one.
    expect(lines[0]).toContain('1 Apps  2 Keys  3 Users  4 Usage  5 Credits  6 Subscription');
    expect(screen()).toContain('? help · q quit');
    tmux('send-keys', '-t', id, '4');
    await showing('Usage of Default app, last 30 days');
    tmux('send-keys', '-t', id, 'q');
    await poll('the session to end', () => tmux('has-session', '-t', id).status !== 0);
    await poll('the exit code', () => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n'));
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0');
  });
});
