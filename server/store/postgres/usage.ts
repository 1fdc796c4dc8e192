import type { Query, Sql } from './database.js';
import { PENDING_ROWS, USAGE_ROLLUPS, TOTAL_COLUMNS, addToRollupSql, rowTotals, sumTotals, totalsOf, usageColumns } from '../usage-rollups.js';
import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH, splitUsageWindow } from '../usage-window.js';
import type { RollSchedule } from '../rollup-schedule.js';
import type { Store, UsageEvent, UsageFilter, UsageTotals } from '../types.js';

// SUM of a BIGINT is NUMERIC in PostgreSQL (a string to postgres.js): cast back to BIGINT so the
// totals come back as numbers, as SQLite's do.
const SUMS = sumTotals('::bigint');

/** The columns of a usage row, with their types. */
const USAGE_COLUMN_TYPES = [
  ['request_id', 'text'],
  ['app_uuid', 'text'],
  ['livemode', 'boolean'],
  ['key_id', 'text'],
  ['address', 'text'],
  ['provider', 'text'],
  ['model', 'text'],
  ['operation', 'text'],
  ['input_tokens', 'bigint'],
  ['output_tokens', 'bigint'],
  ['cache_read_tokens', 'bigint'],
  ['cache_write_tokens', 'bigint'],
  ['cache_write_1h_tokens', 'bigint'],
  ['reasoning_tokens', 'bigint'],
  ['cost_micro', 'bigint'],
  ['charged_micro', 'bigint'],
  ['latency_ms', 'bigint'],
  ['ttft_ms', 'bigint'],
  ['status', 'text'],
  ['error_code', 'text'],
  ['attempts', 'text'],
  ['created_at', 'text'],
] as const;

const USAGE_COLUMNS = USAGE_COLUMN_TYPES.map(([column]) => column).join(', ');
/** What `usageWrites` inserts into those columns: a record's, with what the statement charged. */
const USAGE_VALUES = USAGE_COLUMN_TYPES.map(([column]) => (column === 'charged_micro' ? 'charged' : column)).join(', ');

/** The rollups' CTEs, added to from the `rolled` CTE's usage rows: the same text every time, built once. */
const ROLLUP_CTES = USAGE_ROLLUPS.map((rollup, i) => `, usage_rollup_${i} AS (${addToRollupSql(rollup, 'rolled', 'r')})`).join('');

/**
 * Moves at most `limit` pending rows, oldest first, into the rollups and off the list, in one
 * statement; answers how many. Rows another instance is rolling are skipped (each roll takes rows
 * of its own), and the rollups are written in key order (usage-rollups.ts), so two rolls never
 * wait on each other in a cycle. Both lists of ids are arrays looked up by primary key: joined
 * as a table, the planner, misjudging how few rows are pending (stale statistics, a plan cached
 * while the tables were small), read the whole of usage_events by a hash join at every roll.
 */
export async function rollPending(sql: Sql, limit: number): Promise<number> {
  const [row] = await rollPendingStatement(sql, limit);
  return row?.taken ?? 0;
}

/** rollPending's statement, unsent (a test reads its plan). */
export function rollPendingStatement(sql: Sql, limit: number) {
  return sql<{ taken: number }[]>`
    WITH taken AS (
      DELETE FROM usage_pending WHERE id = ANY (ARRAY(SELECT id FROM usage_pending ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED))
      RETURNING id
    ), rolled AS (
      SELECT u.* FROM usage_events u WHERE u.id = ANY (ARRAY(SELECT id FROM taken))
    )${sql.unsafe(ROLLUP_CTES)}
    SELECT COUNT(*)::int AS taken FROM taken`;
}

/** A usage row as a statement takes it from JSON (`usageRecords`); what was charged comes from the statement. */
export const usageRecord = (event: UsageEvent, costMicro: number) => usageColumns(event, { costMicro, chargedMicro: null }, event.livemode);

type UsageRecord = ReturnType<typeof usageRecord>;

const USAGE_RECORD_COLUMNS = USAGE_COLUMN_TYPES.filter(([column]) => column !== 'charged_micro')
  .map(([column, type]) => `${column} ${type}`)
  .join(', ');

/**
 * `records` (`usageRecord`'s, with `extra` columns of the caller's, declared as `name type, …`)
 * as rows of a FROM clause: one parameter, however many they are.
 */
export const usageRecords = (q: Query, records: UsageRecord[], extra = '') =>
  q`jsonb_to_recordset(${q.json(records)}) AS t(${q.unsafe(`${extra}${extra ? ', ' : ''}${USAGE_RECORD_COLUMNS}`)})`;

/**
 * The usage rows of the CTE `from` (`usageRecord`'s columns and `charged`, what was charged),
 * listed as pending for the rollups the reports read (usage-rollups.ts), as CTEs of the caller's
 * statement (`WITH …, ${usageWrites(…)} SELECT …`): written by the statement that settles them.
 * A request has one usage row: one written already (a settlement retried) is left.
 */
export function usageWrites(from: string): string {
  return `
    usage_row AS (
      INSERT INTO usage_events (${USAGE_COLUMNS})
      SELECT ${USAGE_VALUES} FROM ${from}
      ON CONFLICT (request_id) DO NOTHING
      RETURNING id, request_id
    ), usage_listed AS (
      INSERT INTO usage_pending (id) SELECT id FROM usage_row
    )`;
}

const IN_WINDOW = 'HAVING SUM(requests) > 0';

/**
 * Usage reports, with SQLite's ordering: text sorts by bytes (COLLATE "C", whatever the
 * database's collation) and a null address sorts first, as it does in SQLite. Each reads a
 * window's usage of one app in one mode as rollup-shaped rows: the rollups of its whole days and
 * hours to the end of its last hour and the usage rows of those hours not rolled up yet, the usage
 * rows of its partial first hour, and, negated, the usage rows of its last hour after its end
 * (usage-window.ts). A group whose requests add up to none had no row in the window. The rows
 * written (the refusals') are rolled up by `rolls`.
 */
export function createUsageRepository(sql: Sql, rolls: Pick<RollSchedule, 'written' | 'now'>): Store['usage'] {
  const totalColumns = sql.unsafe(TOTAL_COLUMNS);
  const inWindow = sql.unsafe(IN_WINDOW);
  const sums = sql.unsafe(SUMS);
  const ofApp = (filter: UsageFilter) => sql`app_uuid = ${filter.appUuid} AND livemode = ${filter.livemode}`;
  // A null address reports on the whole app; otherwise on one user of it.
  const ofAddress = (filter: UsageFilter) => sql`(${filter.address ?? null}::text IS NULL OR address = ${filter.address ?? null}::text)`;

  /**
   * The usage rows of the window's partial first hour, those of its rollup hours not rolled up
   * yet, and those of its last hour after its end, negated.
   */
  const edges = (filter: UsageFilter, columns: ReturnType<typeof sql.unsafe>) => {
    const { headEnd, tailEnd } = splitUsageWindow(filter);
    return sql`
      SELECT ${columns}, ${sql.unsafe(rowTotals())} FROM usage_events
        WHERE ${ofApp(filter)} AND ${ofAddress(filter)}
          AND created_at >= ${filter.start} AND created_at < ${headEnd} AND created_at <= ${filter.end}
      UNION ALL SELECT ${columns}, ${sql.unsafe(rowTotals())} FROM usage_events
        WHERE ${sql.unsafe(PENDING_ROWS.postgres)} AND ${ofApp(filter)} AND ${ofAddress(filter)} AND created_at >= ${headEnd} AND created_at < ${tailEnd}
      UNION ALL SELECT ${columns}, ${sql.unsafe(rowTotals('-'))} FROM usage_events
        WHERE ${ofApp(filter)} AND ${ofAddress(filter)} AND created_at > ${filter.end} AND created_at < ${tailEnd}`;
  };

  /** By hour and model: the app's own rollup, or one user's rows of the detailed one. */
  const hours = (filter: UsageFilter) => {
    const { fromHour, toHour } = splitUsageWindow(filter);
    const rollup =
      filter.address == null
        ? sql`SELECT hour, provider, model, ${totalColumns} FROM usage_hourly_models
            WHERE ${ofApp(filter)} AND hour >= ${fromHour} AND hour < ${toHour}`
        : sql`SELECT hour, provider, model, ${totalColumns} FROM usage_hourly
            WHERE ${ofApp(filter)} AND address = ${filter.address} AND hour >= ${fromHour} AND hour < ${toHour}`;
    return sql`(${rollup} UNION ALL ${edges(filter, sql.unsafe(`substr(created_at, 1, ${HOUR_KEY_LENGTH}) COLLATE "C", provider, model`))}) AS window_usage`;
  };

  /** By user (`who`, '' for API-key requests): whole days, then the whole hours outside them. */
  const users = (filter: UsageFilter) => {
    const { fromHour, toHour, fromDay, toDay } = splitUsageWindow(filter);
    const byHour = (from: string, to: string) => sql`
      SELECT address, ${totalColumns} FROM usage_hourly_users
        WHERE ${ofApp(filter)} AND ${ofAddress(filter)} AND hour >= ${from} AND hour < ${to}`;
    return sql`(
      SELECT address AS who, ${totalColumns} FROM usage_daily_users
        WHERE ${ofApp(filter)} AND ${ofAddress(filter)} AND day >= ${fromDay} AND day < ${toDay}
      UNION ALL ${byHour(fromHour, fromDay)}
      UNION ALL ${byHour(toDay, toHour)}
      UNION ALL ${edges(filter, sql.unsafe(`COALESCE(address, '')`))}
    ) AS window_usage`;
  };

  return {
    async record(event) {
      // Nothing was charged: a refused request moves no money.
      await sql`WITH refusal AS (SELECT *, 0::bigint AS charged FROM ${usageRecords(sql, [usageRecord(event, 0)])}), ${sql.unsafe(usageWrites('refusal'))} SELECT 1`;
      rolls.written();
    },
    rollUp: rolls.now,

    async byModel(filter) {
      const rows = await sql<(UsageTotals & { provider: string; model: string })[]>`
        SELECT provider, model, ${sums} FROM ${hours(filter)}
        GROUP BY provider, model ${inWindow} ORDER BY "chargedMicro" DESC, provider COLLATE "C", model COLLATE "C"`;
      return rows.map((row) => ({ provider: row.provider, model: row.model, ...totalsOf(row) }));
    },

    async byBucket(filter, granularity) {
      const width = granularity === 'day' ? DAY_KEY_LENGTH : HOUR_KEY_LENGTH;
      const rows = await sql<(UsageTotals & { bucket: string })[]>`
        SELECT substr(hour, 1, ${width}::int) AS bucket, ${sums}
        FROM ${hours(filter)} GROUP BY 1 ${inWindow} ORDER BY 1`;
      return rows.map((row) => ({ bucket: row.bucket, ...totalsOf(row) }));
    },

    async byUser(filter, page) {
      // The page and, beside each of its rows, how many users there are in all (one pass over the rollups).
      const rows = await sql<(UsageTotals & { address: string | null; users: number })[]>`
        SELECT NULLIF(who, '') AS address, ${sums}, COUNT(*) OVER () AS users FROM ${users(filter)} GROUP BY who ${inWindow}
        ORDER BY "chargedMicro" DESC, requests DESC, who COLLATE "C"
        LIMIT ${page.limit} OFFSET ${page.offset}`;
      // Past the last page there is no row to say how many users there are: count them.
      const countUsers = async () => {
        const [count] = await sql<{ n: number }[]>`
          SELECT COUNT(*) AS n FROM (SELECT who FROM ${users(filter)} GROUP BY who ${inWindow}) AS in_window`;
        return count?.n ?? 0;
      };
      const total = rows[0]?.users ?? (page.offset === 0 ? 0 : await countUsers());
      return { items: rows.map((row) => ({ address: row.address, ...totalsOf(row) })), total };
    },
  };
}
