import type { UsageFilter } from './types.js';

/**
 * Usage reports read rollups (usage-rollups.ts: per UTC hour or day, app and mode, and user, key
 * or model), kept from the usage rows in batches, instead of scanning usage rows.
 *
 * Answers stay exact to the millisecond. A window [start, end] is read as the rollups of the
 * whole days and hours from the first hour boundary at or after `start` to the end of the hour
 * holding `end`, and the usage rows of those hours still pending (not rolled up yet), plus the
 * usage rows of the partial first hour (start up to that boundary), minus the usage rows of the
 * last hour that come after `end` (pending or not: a pending one was added with its hour). A
 * window ending now has nothing after its end, so it reads rollups and one partial hour of usage
 * rows at most (through the (app, time) indexes); a window inside one hour that does not start on
 * it is read from usage rows.
 *
 * A row's hour is the first 13 characters of its RFC 3339 UTC time (`2026-03-01T12`), its day
 * the first 10 (`2026-03-01`): the keys of the reports' hour and day buckets.
 */
export const HOUR_KEY_LENGTH = 13;
export const DAY_KEY_LENGTH = 10;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Keys compare as text, like the times: `2026-03-01T23` < `2026-03-02` <= `2026-03-02T00`. */
export interface UsageWindowParts {
  /** Usage rows added: `start <= created_at < headEnd`, and `created_at <= end`. */
  headEnd: string;
  /** Usage rows taken away: `end < created_at < tailEnd`. Pending rows added: `headEnd <= created_at < tailEnd`. */
  tailEnd: string;
  /** Rollup hours `fromHour <= hour < toHour`… */
  fromHour: string;
  toHour: string;
  /** …of which whole days `fromDay <= day < toDay`; the hours outside them are `fromHour <= hour < fromDay` and `toDay <= hour < toHour`. */
  fromDay: string;
  toDay: string;
}

const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, HOUR_KEY_LENGTH);
const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, DAY_KEY_LENGTH);
const iso = (ms: number) => new Date(ms).toISOString();

/** Splits a report's window into rollups of whole days and hours, and the usage rows at its edges. */
export function splitUsageWindow(filter: Pick<UsageFilter, 'start' | 'end'>): UsageWindowParts {
  const firstHour = Math.ceil(Date.parse(filter.start) / HOUR_MS) * HOUR_MS;
  // The end is inclusive: its hour ends at the first boundary after it.
  const endOfHours = Math.ceil((Date.parse(filter.end) + 1) / HOUR_MS) * HOUR_MS;
  if (firstHour >= endOfHours) {
    // Inside one hour, not from its start: every row of the window is read as it is.
    const none = hourKey(endOfHours);
    return { headEnd: iso(endOfHours), tailEnd: filter.end, fromHour: none, toHour: none, fromDay: none, toDay: none };
  }
  const firstDay = Math.ceil(firstHour / DAY_MS) * DAY_MS;
  const endOfDays = Math.floor(endOfHours / DAY_MS) * DAY_MS;
  const wholeDays = firstDay < endOfDays;
  return {
    headEnd: iso(firstHour),
    tailEnd: iso(endOfHours),
    fromHour: hourKey(firstHour),
    toHour: hourKey(endOfHours),
    // No whole day: an empty range of days where the hours end, so every hour is outside days.
    fromDay: wholeDays ? dayKey(firstDay) : hourKey(endOfHours),
    toDay: wholeDays ? dayKey(endOfDays) : hourKey(endOfHours),
  };
}
