import { render } from 'ink-testing-library';
import { stripVTControlCharacters } from 'node:util';
import { expect, vi } from 'vitest';
import type { TestServer } from './server.js';
import { createClient } from '../../src/client/client.js';
import { operations } from '../../src/contract/operations/index.js';
import type { DashboardApi } from '../../src/tui/dashboard/api.js';
import { createDashboardApi } from '../../src/tui/dashboard/client-api.js';
import { DashboardApp } from '../../src/tui/dashboard/DashboardApp.js';
import type { RefreshState } from '../../src/tui/dashboard/refresh.js';
import type { ScreenId } from '../../src/tui/dashboard/screens.js';
import { manualTicker } from '../../src/tui/dashboard/ticker.js';

/**
 * For the dashboard's tests (not a test itself): the dashboard as a user meets it, keys into
 * stdin and the drawn frame out, on the real server wherever it has the operations.
 */

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  tab: '\t',
  shiftTab: '\u001b[Z',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  home: '\u001b[H',
  end: '\u001b[F',
  pageUp: '\u001b[5~',
  pageDown: '\u001b[6~',
  backspace: '\u007f',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlU: '\u0015',
};

/** The port on the real server, signed in with the server's live key (the bootstrap app's). */
export function serverApi(server: TestServer, apiKey: string = server.liveKey): DashboardApi {
  return createDashboardApi({ client: createClient({ baseUrl: server.url, apiKey }), operations, apiKey });
}

/**
 * A port that answers only what `answers` gives; anything else fails the way an unknown
 * operation would, so a test sees what a screen asked for. The apps list is empty by default.
 */
export function fakeApi(answers: Partial<DashboardApi>): DashboardApi {
  const base: Partial<DashboardApi> = { apps: async () => ({ items: [], total: 0 }), signedInWith: () => false, ...answers };
  return new Proxy(base, {
    get: (target, name: string) =>
      target[name as keyof DashboardApi] ?? (() => Promise.reject(new Error(`the fake port has no ${name}`))),
  }) as DashboardApi;
}

/** Counts the calls of one of the port's reads (how often a screen reloads), passing each on. */
export function countCalls<K extends keyof DashboardApi>(api: DashboardApi, name: K): { count: number } {
  const counter = { count: 0 };
  const read = (api[name] as (...args: unknown[]) => unknown).bind(api);
  api[name] = ((...args: unknown[]) => {
    counter.count++;
    return read(...args);
  }) as DashboardApi[K];
  return counter;
}

export const SIZE = { columns: 80, rows: 24 };

export function openDashboard(options: {
  api: DashboardApi;
  screen?: ScreenId;
  now?: () => Date;
  size?: typeof SIZE;
  openUrl?: (url: string) => Promise<void>;
  checkoutPollMs?: number;
  refresh?: RefreshState;
}) {
  const size = options.size ?? SIZE;
  // Time that repeats (the auto-refresh, a checkout's watch) moves only when a test says so.
  const ticker = manualTicker();
  const exit = vi.fn();
  const openUrl = vi.fn(options.openUrl ?? (async () => {}));
  const keep = vi.fn();
  const copy = vi.fn();
  const app = render(
    <DashboardApp
      api={options.api}
      initialScreen={options.screen}
      now={options.now ?? (() => new Date())}
      openUrl={openUrl}
      exit={exit}
      keep={keep}
      copy={copy}
      checkoutPollMs={options.checkoutPollMs}
      refresh={options.refresh}
      ticker={ticker}
      size={size}
    />,
  );
  const screen = () => stripVTControlCharacters(app.lastFrame() ?? '');
  const press = (...keys: string[]) => keys.forEach((key) => app.stdin.write(key));
  const shows = (expected: string | RegExp) =>
    vi.waitFor(() => (typeof expected === 'string' ? expect(screen()).toContain(expected) : expect(screen()).toMatch(expected)), { timeout: 15_000 });
  /** Moves the cursor down to the row that holds `text` (the server's order is not the test's). */
  const pick = async (text: string) => {
    const selected = () => screen().split('\n').find((line) => line.startsWith('› ')) ?? '';
    await vi.waitFor(() => expect(selected()).not.toBe(''), { timeout: 15_000 });
    for (let i = 0; i < 100 && !selected().includes(text); i++) {
      const before = selected();
      press(KEY.down);
      await vi.waitFor(() => expect(selected()).not.toBe(before), { timeout: 15_000 });
    }
    expect(selected()).toContain(text);
  };
  return {
    exit,
    openUrl,
    /** The dashboard's beat: `advance(ms)` runs the auto-refreshes and checkout watches that fall due. */
    ticker,
    /**
     * Waits until something repeats every `ms` (its effect has run after the frame was drawn),
     * then moves the beat by `ms`.
     */
    async beat(ms: number) {
      await vi.waitFor(() => expect(ticker.has(ms)).toBe(true), { timeout: 15_000 });
      ticker.advance(ms);
    },
    /** What the dashboard asked to print after it closes. */
    keep,
    copy,
    screen,
    press,
    shows,
    /** Waits until `text` is gone from the screen. */
    hides: (text: string) => vi.waitFor(() => expect(screen()).not.toContain(text), { timeout: 15_000 }),
    /** Types text into the dialog's field, one key per character (as a person does). */
    type: (text: string) => [...text].forEach((character) => app.stdin.write(character)),
    /** The line that holds `text`. */
    line: (text: string) => screen().split('\n').find((line) => line.includes(text)) ?? '',
    /** The row the cursor is on (marked ›), without the mark. */
    selectedRow: () => screen().split('\n').find((line) => line.startsWith('› ')) ?? '',
    pick,
    /** From the Apps screen: picks the app called `name` and opens its keys. */
    async openApp(name: string) {
      await pick(name);
      press(KEY.enter);
      await shows(`API keys of ${name}`);
    },
    /** Every frame drawn so far fits the terminal: no line wider, no more lines than it has. */
    expectFits() {
      const frames = app.frames.map((frame) => stripVTControlCharacters(frame));
      expect(frames.length).toBeGreaterThan(0);
      for (const frame of frames) {
        const lines = frame.split('\n');
        expect(lines.length, frame).toBeLessThanOrEqual(size.rows);
        for (const line of lines) expect([...line].length, `${line}\nin\n${frame}`).toBeLessThanOrEqual(size.columns);
      }
    },
  };
}

export type Dashboard = ReturnType<typeof openDashboard>;
