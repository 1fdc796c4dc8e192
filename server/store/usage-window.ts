import type { UsageFilter } from './types.js';

/**
 * Usage reports read hourly rollups (`usage_hourly`, one row per UTC hour, app, key, user and
 * model, written in the same transaction as each usage row) instead of scanning usage rows. A
 * report's window is exact to the millisecond all the same: the hours wholly inside it come from
 * the rollups, and the partial hours at its two edges from the usage rows themselves (at most two
 * hours of one app's rows, read through the (app, time) indexes).
 *
 * A row's hour is the first 13 characters of its RFC 3339 UTC time (`2026-03-01T12`), the same
 * key the hourly buckets of a report use.
 */
export const HOUR_KEY_LENGTH = 13;

const HOUR_MS = 3_600_000;

export interface UsageWindowParts {
  /** Rollup hours `fromHour <= hour < toHour` (equal when no whole hour fits in the window). */
  fromHour: string;
  toHour: string;
  /** Usage rows of the partial first hour: `start <= created_at < headEnd`. */
  headEnd: string;
  /** Usage rows of the partial last hour: `tailStart <= created_at <= end` (end inclusive, as the filter's). */
  tailStart: string;
}

const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, HOUR_KEY_LENGTH);

/** Splits a report's window into whole hours (rollups) and the partial hours at its edges (usage rows). */
export function splitUsageWindow(filter: Pick<UsageFilter, 'start' | 'end'>): UsageWindowParts {
  const start = Date.parse(filter.start);
  // The end is inclusive: the hour of `end` is whole only when it ends at end + 1 ms.
  const firstWhole = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const afterLastWhole = Math.floor((Date.parse(filter.end) + 1) / HOUR_MS) * HOUR_MS;
  if (firstWhole >= afterLastWhole) {
    // No whole hour: every row of the window is read as it is.
    return { fromHour: hourKey(firstWhole), toHour: hourKey(firstWhole), headEnd: filter.start, tailStart: filter.start };
  }
  return {
    fromHour: hourKey(firstWhole),
    toHour: hourKey(afterLastWhole),
    headEnd: new Date(firstWhole).toISOString(),
    tailStart: new Date(afterLastWhole).toISOString(),
  };
}
