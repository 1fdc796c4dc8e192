import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../../../../test/helpers/api.js';
import { setBreaker } from '../../../../test/helpers/breakers.js';
import { pricedProvider } from '../../../../test/helpers/providers.js';
import { countCalls, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';
import { refreshFromSeconds } from '../refresh.js';

/** The Providers screen against the real server: each served target and its breaker as the store has it. */
const t = useTestServer({ providers: [pricedProvider()] });
afterEach(() => cleanup());

const open = (key?: string) => openDashboard({ api: serverApi(t, key), screen: 'providers', now: () => t.clock.now() });

describe('the Providers screen', () => {
  it("shows each served target's breaker and follows it live, with no traffic figure; fits 80×24", async () => {
    await setBreaker(t, 'paid/embed', 'open');
    const dash = open();
    await dash.shows('Providers (4)');
    expect(dash.line('local/echo')).toMatch(/local\/echo\s+closed\s*$/);
    expect(dash.line('paid/echo')).toMatch(/paid\/echo\s+closed\s*$/);
    expect(dash.line('paid/embed')).toMatch(/paid\/embed\s+OPEN\s*$/);
    expect(dash.screen()).toContain('1 breaker not closed');
    expect(dash.screen()).toContain("operator's (GET /metrics)");
    dash.expectFits();

    // No key pressed: the dashboard's auto-refresh (every 5 s by default) reads the breakers again.
    await setBreaker(t, 'paid/embed', 'half_open');
    await dash.beat(5_000);
    await dash.shows(/paid\/embed\s+half-open/);
    dash.expectFits();
  });

  it('follows the one auto-refresh of every screen, at the interval asked for (--refresh), and not when it is off', async () => {
    /** The dashboard at `--refresh seconds`, counting its reads of the providers. */
    const counted = (seconds: string) => {
      const api = serverApi(t);
      const reads = countCalls(api, 'providerStatus');
      return { dash: openDashboard({ api, screen: 'providers', now: () => t.clock.now(), refresh: refreshFromSeconds(seconds)! }), reads };
    };

    // No timer of its own (it had one every 2 s): only the dashboard's beat, every 30 s.
    const timers = vi.spyOn(globalThis, 'setInterval');
    const every30 = counted('30');
    await every30.dash.shows(/paid\/embed\s+closed/);
    expect(every30.dash.screen().split('\n')[1]).toMatch(/↻ 30s$/);
    // (vi.waitFor polls every 100 ms; no beat of the screen's is that quick.)
    expect(timers.mock.calls.map(([, ms]) => ms).filter((ms) => (ms ?? 0) >= 1_000)).toEqual([]);
    timers.mockRestore();
    await setBreaker(t, 'paid/embed', 'open');
    every30.dash.ticker.advance(29_999);
    expect(every30.reads.count).toBe(1);
    await every30.dash.beat(30_000);
    await every30.dash.shows(/paid\/embed\s+OPEN/);
    expect(every30.reads.count).toBe(2);
    cleanup();

    const off = counted('0');
    await off.dash.shows(/paid\/embed\s+OPEN/);
    expect(off.dash.screen().split('\n')[1]).toMatch(/↻ paused$/);
    off.dash.ticker.advance(600_000);
    expect(off.reads.count).toBe(1);
    await setBreaker(t, 'paid/embed', 'closed');
    off.dash.press('r');
    await off.dash.shows(/paid\/embed\s+closed/);
    expect(off.reads.count).toBe(2);
  });

  it('r reloads at once; a key that is not admin is told so', async () => {
    const dash = open();
    await dash.shows(/paid\/echo\s+closed/);
    await setBreaker(t, 'paid/echo', 'open');
    dash.press('r');
    await dash.shows(/paid\/echo\s+OPEN/);

    const reader = (await t.server.services.apiKeys.create(t.appUuid, { name: 'reader', role: 'read_only', is_test: false })).secret;
    const refused = open(reader);
    await refused.shows('Could not load providers');
    expect(refused.screen()).toMatch(/admin/);
  });
});
