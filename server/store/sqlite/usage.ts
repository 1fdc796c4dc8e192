import type { Db } from './database.js';
import { createUsageWriter } from './usage-rows.js';
import { PENDING_ROWS, TOTAL_COLUMNS, rowTotals, sumTotals, totalsOf } from '../usage-rollups.js';
import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH, splitUsageWindow } from '../usage-window.js';
import type { RollSchedule } from '../rollup-schedule.js';
import type { Store, UsageFilter, UsageTotals } from '../types.js';

/*
 * Each report reads a window's usage of one app in one mode as rollup-shaped rows (some columns,
 * then the totals): the rollups of its whole days and hours to the end of its last hour and the
 * usage rows of those hours not rolled up yet, the usage rows of its partial first hour, and,
 * negated, the usage rows of its last hour after its end (usage-window.ts). A group whose
 * requests add up to none had no row in the window.
 */
const OF_APP = 'app_uuid = @appUuid AND livemode = @livemode';
// `@address IS NULL` reports on the whole app; otherwise on one user of it.
const OF_ADDRESS = '(@address IS NULL OR address = @address)';

/**
 * The usage rows of the window's partial first hour, those of its rollup hours not rolled up yet
 * (by id, NOT INDEXED: the few after the mark, never a scan of the window's rows by time), and
 * those of its last hour after its end, negated.
 */
const edges = (columns: string) => `
  SELECT ${columns}, ${rowTotals()} FROM usage_events
    WHERE ${OF_APP} AND ${OF_ADDRESS} AND created_at >= @start AND created_at < @headEnd AND created_at <= @end
  UNION ALL SELECT ${columns}, ${rowTotals()} FROM usage_events NOT INDEXED
    WHERE ${PENDING_ROWS.sqlite} AND ${OF_APP} AND ${OF_ADDRESS} AND created_at >= @headEnd AND created_at < @tailEnd
  UNION ALL SELECT ${columns}, ${rowTotals('-')} FROM usage_events
    WHERE ${OF_APP} AND ${OF_ADDRESS} AND created_at > @end AND created_at < @tailEnd`;

const EDGE_HOURS = `substr(created_at, 1, ${HOUR_KEY_LENGTH}), provider, model`;
/** The whole app by hour and model. */
const APP_HOURS = `(
  SELECT hour, provider, model, ${TOTAL_COLUMNS} FROM usage_hourly_models
    WHERE ${OF_APP} AND hour >= @fromHour AND hour < @toHour
  UNION ALL ${edges(EDGE_HOURS)})`;
/** One user by hour and model. */
const USER_HOURS = `(
  SELECT hour, provider, model, ${TOTAL_COLUMNS} FROM usage_hourly INDEXED BY usage_hourly_user
    WHERE ${OF_APP} AND address = @address AND hour >= @fromHour AND hour < @toHour
  UNION ALL ${edges(EDGE_HOURS)})`;
/** By user (`who`, '' for API-key requests): whole days, then the whole hours outside them. */
const USERS = `(
  SELECT address AS who, ${TOTAL_COLUMNS} FROM usage_daily_users
    WHERE ${OF_APP} AND ${OF_ADDRESS} AND day >= @fromDay AND day < @toDay
  UNION ALL SELECT address, ${TOTAL_COLUMNS} FROM usage_hourly_users
    WHERE ${OF_APP} AND ${OF_ADDRESS} AND hour >= @fromHour AND hour < @fromDay
  UNION ALL SELECT address, ${TOTAL_COLUMNS} FROM usage_hourly_users
    WHERE ${OF_APP} AND ${OF_ADDRESS} AND hour >= @toDay AND hour < @toHour
  UNION ALL ${edges(`COALESCE(address, '')`)})`;

const SUMS = sumTotals();
const IN_WINDOW = 'HAVING SUM(requests) > 0';

const params = (filter: UsageFilter) => ({
  ...filter,
  livemode: filter.livemode ? 1 : 0,
  address: filter.address ?? null,
  ...splitUsageWindow(filter),
});

/** Usage reports, and the rows written (the refusals'), rolled up by `rolls`. */
export function createUsageRepository(db: Db, rolls: Pick<RollSchedule, 'written' | 'now'>): Store['usage'] {
  const hourlyReports = (source: string) => ({
    byModel: db.prepare<Record<string, unknown>, UsageTotals & { provider: string; model: string }>(
      `SELECT provider, model, ${SUMS} FROM ${source} GROUP BY provider, model ${IN_WINDOW} ORDER BY "chargedMicro" DESC, provider, model`,
    ),
    byBucket: db.prepare<Record<string, unknown>, UsageTotals & { bucket: string }>(
      `SELECT substr(hour, 1, @width) AS bucket, ${SUMS} FROM ${source} GROUP BY bucket ${IN_WINDOW} ORDER BY bucket`,
    ),
  });
  const ofApp = hourlyReports(APP_HOURS);
  const ofUser = hourlyReports(USER_HOURS);
  const reportsOf = (filter: UsageFilter) => (filter.address == null ? ofApp : ofUser);
  // The page and, beside each of its rows, how many users there are in all (one pass over the rollups).
  const byUser = db.prepare<Record<string, unknown>, UsageTotals & { address: string | null; users: number }>(
    `SELECT NULLIF(who, '') AS address, ${SUMS}, COUNT(*) OVER () AS users FROM ${USERS} GROUP BY who ${IN_WINDOW}
     ORDER BY "chargedMicro" DESC, requests DESC, who LIMIT @limit OFFSET @offset`,
  );
  const countUsers = db.prepare<Record<string, unknown>, { n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT who FROM ${USERS} GROUP BY who ${IN_WINDOW})`,
  );
  const write = db.transaction(createUsageWriter(db));

  return {
    async record(event) {
      if (write(event, 0)) rolls.written();
    },
    rollUp: rolls.now,
    async byModel(filter) {
      return reportsOf(filter)
        .byModel.all(params(filter))
        .map((row) => ({ provider: row.provider, model: row.model, ...totalsOf(row) }));
    },
    async byBucket(filter, granularity) {
      const width = granularity === 'day' ? DAY_KEY_LENGTH : HOUR_KEY_LENGTH;
      return reportsOf(filter)
        .byBucket.all({ ...params(filter), width })
        .map((row) => ({ bucket: row.bucket, ...totalsOf(row) }));
    },
    async byUser(filter, page) {
      const rows = byUser.all({ ...params(filter), ...page });
      // Past the last page there is no row to say how many users there are: count them.
      const total = rows[0]?.users ?? (page.offset === 0 ? 0 : (countUsers.get(params(filter))?.n ?? 0));
      return { items: rows.map((row) => ({ address: row.address, ...totalsOf(row) })), total };
    },
  };
}
