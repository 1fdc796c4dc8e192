import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, useTestServer } from '../../../test/helpers/api.js';
import { describeRefresh, stepRefresh } from './refresh.js';
import { countCalls, KEY, openDashboard, serverApi } from '../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

/** The dashboard on the real server, counting how often the apps are read. */
function counted() {
  const api = serverApi(t);
  const apps = countCalls(api, 'apps');
  return { dash: openDashboard({ api }), apps };
}

/** Once nothing repeats any more, no stretch of time reloads the apps; the count it stays at. */
async function expectNoReload(dash: ReturnType<typeof counted>['dash'], apps: { count: number }) {
  await vi.waitFor(() => expect(dash.ticker.has(5_000)).toBe(false), { timeout: 15_000 });
  const before = apps.count;
  dash.ticker.advance(600_000);
  expect(apps.count).toBe(before);
  return before;
}

describe('the auto-refresh', () => {
  it('reloads the current screen every 5 s, shown in the header; - and + change it', async () => {
    const { dash } = counted();
    await dash.shows('Apps (1)');
    expect(dash.screen().split('\n')[1]).toMatch(/↻ 5s$/);
    await createApp(t, { name: 'Made elsewhere' });
    await dash.beat(5_000);
    await dash.shows('Apps (2)');
    dash.press('-');
    await dash.shows('↻ 2s');
    await dash.shows('Auto-refresh every 2s');
    await createApp(t, { name: 'And another' });
    await dash.beat(2_000);
    await dash.shows('Apps (3)');
    dash.press('+', '+');
    await dash.shows('↻ 10s');
    dash.expectFits();
  });

  it('Space pauses it (r still reloads at once) and resumes it', async () => {
    const { dash, apps } = counted();
    await dash.shows('Apps (1)');
    dash.press(' ');
    await dash.shows('↻ paused');
    await expectNoReload(dash, apps);
    await createApp(t, { name: 'Unseen yet' });
    dash.press('r');
    await dash.shows('Apps (2)');
    dash.press(' ');
    await dash.shows('↻ 5s');
    await createApp(t, { name: 'Seen later' });
    await dash.beat(5_000);
    await dash.shows('Apps (3)');
  });

  it('holds back while a dialog is open, so the row it is about stays put', async () => {
    const { dash, apps } = counted();
    await dash.shows('Apps (1)');
    dash.press('n');
    await dash.shows('New app');
    const before = await expectNoReload(dash, apps);
    dash.press(KEY.esc);
    await dash.hides('New app');
    await dash.beat(5_000);
    await vi.waitFor(() => expect(apps.count).toBe(before + 1), { timeout: 15_000 });
  });
});

describe('the intervals', () => {
  it('step between 2 s and 1 min; a step resumes a paused refresh', () => {
    expect(stepRefresh({ everyMs: 5_000, paused: false }, -1)).toEqual({ everyMs: 2_000, paused: false });
    expect(stepRefresh({ everyMs: 2_000, paused: false }, -1).everyMs).toBe(2_000);
    expect(stepRefresh({ everyMs: 60_000, paused: false }, 1).everyMs).toBe(60_000);
    expect(stepRefresh({ everyMs: 10_000, paused: true }, 1)).toEqual({ everyMs: 30_000, paused: false });
    expect(describeRefresh({ everyMs: 60_000, paused: false })).toBe('↻ 1m');
    expect(describeRefresh({ everyMs: 5_000, paused: true })).toBe('↻ paused');
  });
});
