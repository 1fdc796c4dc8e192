import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, startTerminal, type TerminalSession } from '../helpers/tmux.js';

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
    expect(result.stderr).toContain('Unknown screen "nope": one of apps, keys, users, usage, credits, subscription, billing, providers.');
  });

  it('--refresh takes a whole number of seconds from 0 to 3600; anything else is a usage error naming it', async () => {
    for (const bad of ['soon', '1.5', '3601', '']) {
      const result = await runSvc(['dashboard', '--refresh', bad], { home });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toContain(`--refresh must be a whole number of seconds from 0 (off) to 3600 (got "${bad}").`);
    }
    // A good one passes, to the terminal check.
    const good = await runSvc(['dashboard', 'providers', '--refresh', '30'], { home, env: { SVC_API_KEY: 'svc_live_' + 'A'.repeat(40) } });
    expect(good.code, explain(good)).toBe(2);
    expect(good.stderr).toMatch(/^svc dashboard needs a terminal/);
  });

  it('--help names the screens and the keys', async () => {
    const result = await runSvc(['dashboard', '--help'], { home });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toContain('Screens: apps, keys, users, usage, credits, subscription');
    expect(result.stdout).toContain('svc dashboard usage');
  });
});

if (!hasTmux) console.warn('test/cli/dashboard.test.ts: tmux is not installed; the terminal test of svc dashboard is skipped.');

describe.skipIf(!hasTmux)('svc dashboard in an 80×24 terminal (tmux)', () => {
  let server: TestServer;
  let terminal: TerminalSession;
  beforeAll(async () => {
    server = await startTestServer();
    terminal = startTerminal('dashboard', ['dashboard', '--api-url', server.url], { columns: 80, rows: 24 }, { SVC_API_KEY: server.liveKey });
  });
  afterAll(async () => {
    terminal?.close();
    await server?.close();
  });

  it('draws the apps within the terminal, switches screens, and quits with q (exit 0)', async () => {
    await terminal.showing('Default app');
    const lines = terminal.screen().split('\n');
    // The whole frame is on the screen: the tabs on the first line, the keys on the last drawn one.
    // Eight tabs do not fit 80 columns padded: one space between them, none cut off.
    expect(lines[0]).toContain('1 Apps 2 Keys 3 Users 4 Usage 5 Credits 6 Subscription 7 Billing 8 Providers');
    expect(terminal.screen()).toContain('? help · q quit');
    terminal.send('4');
    await terminal.showing('Usage of Default app, last 30 days');
    terminal.send('q');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('--refresh sets the one interval of every screen: 0 is off, shown in the header', async () => {
    for (const [seconds, shown] of [['0', '↻ paused'], ['30', '↻ 30s']] as const) {
      const refreshing = startTerminal(`dashboard-refresh-${seconds}`, ['dashboard', 'providers', '--refresh', seconds, '--api-url', server.url], { columns: 80, rows: 24 }, { SVC_API_KEY: server.liveKey });
      try {
        await refreshing.showing('Providers (');
        expect(refreshing.screen()).toContain(shown);
        refreshing.send('q');
        expect(await refreshing.exitCode()).toBe(0);
      } finally {
        refreshing.close();
      }
    }
  });
});
