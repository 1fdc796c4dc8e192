import type { Clock } from '../clock.js';
import { invalidRequest } from '../errors.js';
import type { Page, Store, UsageFilter } from '../store/types.js';
import { addTotals, zeroTotals } from '../store/usage-rollups.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MAX_WINDOW_MS = 365 * DAY;
/** Enough for a year of days or a month of hours; more would be a chart nobody can read. */
const MAX_BUCKETS = 800;

export function periodMs(period: string): number {
  const amount = Number(period.slice(0, -1));
  const unit = period.at(-1) === 'm' ? MINUTE : period.at(-1) === 'h' ? HOUR : DAY;
  return amount * unit;
}

function window(start: Date, end: Date, names: [string, string]) {
  if (end.getTime() <= start.getTime()) throw invalidRequest(`${names[1]} must be after ${names[0]}.`, names[1]);
  if (end.getTime() - start.getTime() > MAX_WINDOW_MS) {
    throw invalidRequest(`The window from ${names[0]} to ${names[1]} may be at most 365 days.`, names[0]);
  }
  return { start: start.toISOString(), end: end.toISOString() };
}

function bucketStart(at: Date, granularity: 'day' | 'hour'): Date {
  const start = new Date(at);
  start.setUTCMinutes(0, 0, 0);
  if (granularity === 'day') start.setUTCHours(0);
  return start;
}

export function createUsageService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  return {
    /** `start`/`end` (together, and first) or `period` (default 30d) ending now. */
    modelWindow(query: { start?: string; end?: string; period?: string }) {
      if ((query.start === undefined) !== (query.end === undefined)) {
        throw invalidRequest('start and end must be given together.', query.start === undefined ? 'start' : 'end');
      }
      if (query.start !== undefined && query.end !== undefined) {
        return window(new Date(query.start), new Date(query.end), ['start', 'end']);
      }
      const end = clock.now();
      return window(new Date(end.getTime() - periodMs(query.period ?? '30d')), end, ['start', 'end']);
    },

    /** `start_time`/`end_time`, by default the last 30 days. */
    appWindow(query: { start_time?: string; end_time?: string }) {
      const end = query.end_time ? new Date(query.end_time) : clock.now();
      const start = query.start_time ? new Date(query.start_time) : new Date(end.getTime() - 30 * DAY);
      return window(start, end, ['start_time', 'end_time']);
    },

    byModel: (filter: UsageFilter) => store.usage.byModel(filter),

    byUser: (filter: UsageFilter, page: Page) => store.usage.byUser(filter, page),

    /** Every bucket of the window, empty ones included, so a chart has no gaps. */
    async buckets(filter: UsageFilter, granularity: 'day' | 'hour') {
      const step = granularity === 'day' ? DAY : HOUR;
      const first = bucketStart(new Date(filter.start), granularity).getTime();
      const count = Math.ceil((new Date(filter.end).getTime() - first) / step);
      if (count > MAX_BUCKETS) {
        throw invalidRequest(
          `That window has ${count} ${granularity} buckets; at most ${MAX_BUCKETS}. Narrow it or use granularity=day.`,
          'granularity',
        );
      }
      const rows = new Map((await store.usage.byBucket(filter, granularity)).map((row) => [row.bucket, row]));
      const width = granularity === 'day' ? 10 : 13;
      const buckets = [];
      const totals = zeroTotals();
      for (let i = 0; i < count; i++) {
        const start = new Date(first + i * step).toISOString();
        const row = rows.get(start.slice(0, width)) ?? zeroTotals();
        buckets.push({ start, ...row });
        addTotals(totals, row);
      }
      return { buckets, totals };
    },
  };
}
