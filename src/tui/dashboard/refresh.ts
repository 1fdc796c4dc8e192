/**
 * The auto-refresh of the current screen: how often, or paused. `-` and `+` step through the
 * intervals, Space pauses and resumes, `r` reloads at once.
 */
export const REFRESH_STEPS_MS = [2_000, 5_000, 10_000, 30_000, 60_000] as const;

export const DEFAULT_REFRESH_MS = 5_000;

export interface RefreshState {
  everyMs: number;
  paused: boolean;
}

/** The longest `--refresh` the dashboard takes: an hour. */
export const MOST_REFRESH_SECONDS = 3_600;

/**
 * The auto-refresh `svc dashboard --refresh SECONDS` asks for: every that many seconds, or with
 * 0 off (paused: Space resumes it at the default interval). Null when the text is not a whole
 * number of seconds from 0 to MOST_REFRESH_SECONDS.
 */
export function refreshFromSeconds(text: string): RefreshState | null {
  if (!/^\d{1,4}$/.test(text.trim())) return null;
  const seconds = Number(text.trim());
  if (seconds > MOST_REFRESH_SECONDS) return null;
  return seconds === 0 ? { everyMs: DEFAULT_REFRESH_MS, paused: true } : { everyMs: seconds * 1000, paused: false };
}

/** The next interval up (`by` 1: less often) or down (-1: more often), within the steps. */
export function stepRefresh(state: RefreshState, by: 1 | -1): RefreshState {
  // The nearest step the key's way; an interval beyond the steps (`--refresh 1`, `--refresh 3600`) stays put.
  const next = by === 1 ? REFRESH_STEPS_MS.find((ms) => ms > state.everyMs) : REFRESH_STEPS_MS.findLast((ms) => ms < state.everyMs);
  return { everyMs: next ?? state.everyMs, paused: false };
}

/** "5s", "1m". */
export const interval = (ms: number): string => (ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 100) / 10}s`);

/** What the header says: "↻ 5s" or "↻ paused". */
export const describeRefresh = (state: RefreshState): string => `↻ ${state.paused ? 'paused' : interval(state.everyMs)}`;
