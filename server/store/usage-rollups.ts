import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH } from './usage-window.js';
import type { UsageEvent, UsageTotals } from './types.js';

/**
 * The usage rollups (usage-window.ts) as data, so that SQLite and PostgreSQL, the writers and the
 * backfill build their statements from one definition. Each rollup row keeps the dimensions of
 * its primary key, computed from a usage row's columns, and the totals below.
 */

/** What each rollup row sums: its column, the UsageTotals field a report names it, and its value for one usage row. */
export const USAGE_TOTALS = [
  { column: 'requests', field: 'requests', ofRow: '1' },
  { column: 'refused', field: 'refused', ofRow: "CASE WHEN status = 'refused' THEN 1 ELSE 0 END" },
  { column: 'input_tokens', field: 'inputTokens', ofRow: 'input_tokens' },
  { column: 'output_tokens', field: 'outputTokens', ofRow: 'output_tokens' },
  { column: 'cache_read_tokens', field: 'cacheReadTokens', ofRow: 'cache_read_tokens' },
  { column: 'cache_write_tokens', field: 'cacheWriteTokens', ofRow: 'cache_write_tokens + cache_write_1h_tokens' },
  { column: 'reasoning_tokens', field: 'reasoningTokens', ofRow: 'reasoning_tokens' },
  { column: 'charged_micro', field: 'chargedMicro', ofRow: 'COALESCE(charged_micro, 0)' },
] as const satisfies readonly { column: string; field: keyof UsageTotals; ofRow: string }[];

export const TOTAL_COLUMNS = USAGE_TOTALS.map((total) => total.column).join(', ');

/** A usage row's totals, from its columns; negated (`-`) for the rows a window takes away. */
export const rowTotals = (sign: '' | '-' = '') => USAGE_TOTALS.map((total) => `${sign}(${total.ofRow})`).join(', ');

/** The sums of rollup-shaped rows, named as UsageTotals' fields; `cast` turns PostgreSQL's NUMERIC sums back into numbers. */
export const sumTotals = (cast = '') => USAGE_TOTALS.map((total) => `SUM(${total.column})${cast} AS "${total.field}"`).join(', ');

export const zeroTotals = (): UsageTotals => ({
  requests: 0,
  refused: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  chargedMicro: 0,
});

/** Adds `row`'s totals to `sum`. */
export function addTotals(sum: UsageTotals, row: UsageTotals): void {
  for (const { field } of USAGE_TOTALS) sum[field] += row[field];
}

/** Just the totals of a row that carries more. */
export const totalsOf = (row: UsageTotals): UsageTotals => {
  const totals = zeroTotals();
  addTotals(totals, row);
  return totals;
};

const HOUR = `substr(created_at, 1, ${HOUR_KEY_LENGTH})`;
const DAY = `substr(created_at, 1, ${DAY_KEY_LENGTH})`;
// '' for no address (API-key requests) and no key: a primary key treats NULLs as distinct.
const ADDRESS = "COALESCE(address, '')";

interface Rollup {
  table: string;
  /** Its primary key's columns and their values for a usage row. */
  dimensions: readonly (readonly [column: string, ofRow: string])[];
}

/**
 * - `usage_hourly`: per hour, app, mode, user, key and model (a user's own reports);
 * - `usage_hourly_models`: per hour, app, mode and model (an app's reports by model and by time);
 * - `usage_daily_users`: per day, app, mode and user (an app's report per user, whole days);
 * - `usage_hourly_users`: per hour, app, mode and user (the same report's hours outside whole
 *   days: a few hundred rows an hour where `usage_hourly` has one per user, key and model).
 */
export const USAGE_ROLLUPS: readonly Rollup[] = [
  {
    table: 'usage_hourly',
    dimensions: [
      ['app_uuid', 'app_uuid'],
      ['livemode', 'livemode'],
      ['hour', HOUR],
      ['address', ADDRESS],
      ['key_id', "COALESCE(key_id, '')"],
      ['provider', 'provider'],
      ['model', 'model'],
    ],
  },
  {
    table: 'usage_hourly_models',
    dimensions: [
      ['app_uuid', 'app_uuid'],
      ['livemode', 'livemode'],
      ['hour', HOUR],
      ['provider', 'provider'],
      ['model', 'model'],
    ],
  },
  {
    table: 'usage_daily_users',
    dimensions: [
      ['app_uuid', 'app_uuid'],
      ['livemode', 'livemode'],
      ['day', DAY],
      ['address', ADDRESS],
    ],
  },
  {
    table: 'usage_hourly_users',
    dimensions: [
      ['app_uuid', 'app_uuid'],
      ['livemode', 'livemode'],
      ['hour', HOUR],
      ['address', ADDRESS],
    ],
  },
];

const columnsOf = (rollup: Rollup) => `${rollup.dimensions.map(([column]) => column).join(', ')}, ${TOTAL_COLUMNS}`;
const valuesOf = (rollup: Rollup) => rollup.dimensions.map(([, ofRow]) => ofRow).join(', ');

/** A rollup's rows made from the usage rows of `source`, summed by its dimensions (a usage row alone is a group of one). */
const summedRows = (rollup: Rollup, source: string) =>
  `SELECT ${valuesOf(rollup)}, ${USAGE_TOTALS.map((total) => `SUM(${total.ofRow})`).join(', ')}
    FROM ${source} GROUP BY ${rollup.dimensions.map((_, i) => i + 1).join(', ')}`;

/**
 * Adds the usage rows of `source` (a table or a CTE, with a WHERE clause that picks them) to a
 * rollup: the writers' statement. They are summed by the rollup's key first, so one statement
 * adds a whole group of settlements (PostgreSQL's upsert may not touch a row twice). `alias`
 * names the stored row in the SET clause (PostgreSQL's `INSERT … AS r`; SQLite's SET reads the
 * stored row's columns unqualified).
 */
export function addToRollupSql(rollup: Rollup, source: string, alias: '' | 'r' = ''): string {
  const stored = alias ? `${alias}.` : '';
  const add = USAGE_TOTALS.map(({ column }) => `${column} = ${stored}${column} + excluded.${column}`).join(', ');
  // In key order, so that two statements adding to the same rows take their locks in one order (no deadlock).
  return `INSERT INTO ${rollup.table}${alias ? ` AS ${alias}` : ''} (${columnsOf(rollup)})
    ${summedRows(rollup, source)} ORDER BY ${rollup.dimensions.map((_, i) => i + 1).join(', ')}
    ON CONFLICT (${rollup.dimensions.map(([column]) => column).join(', ')}) DO UPDATE SET ${add}`;
}

/**
 * Usage rows reach the rollups in batches, not in the transaction that writes them: a settlement
 * no longer adds to the four rollup rows that every settlement of an app shares (rows PostgreSQL's
 * settling statements queued on; four of the dozen pages a SQLite settlement committed). A roll
 * (rollup-schedule.ts) adds a batch of pending rows to the rollups and marks them rolled up in one
 * transaction. Reports stay exact meanwhile: the pending rows of a window's rollup hours are added
 * to the rollups it reads (usage-window.ts), so a report reads the same before a roll and after.
 * Which rows are pending: on SQLite, those after a mark (its one writer commits rows in the order
 * of their ids, and keeps them all); on PostgreSQL, those listed in `usage_pending` (several
 * instances commit in no order of their ids).
 */
export const PENDING_ROWS = {
  sqlite: 'id > (SELECT rolled_through FROM usage_rollup_mark)',
  // An array, not a semi-join: the few pending rows are looked up by id, never found by scanning a window's rows.
  postgres: 'id = ANY (ARRAY(SELECT id FROM usage_pending))',
} as const;

/** Builds a rollup from every usage row, into an empty table: the backfill's statement. */
export const fillRollupSql = (rollup: Rollup): string => `INSERT INTO ${rollup.table} (${columnsOf(rollup)})
    ${summedRows(rollup, 'usage_events')}`;

/**
 * Takes the usage rows whose ids are in `ids` (a table of one `id` column) out of a rollup, as
 * `fillRollupSql` put them in: the statement of the migration that removes duplicate usage rows.
 * The same text on SQLite and PostgreSQL (UPDATE … FROM).
 */
export function subtractFromRollupSql(rollup: Rollup, ids: string): string {
  const dimensions = rollup.dimensions.map(([column, ofRow]) => `${ofRow} AS ${column}`).join(', ');
  const sums = USAGE_TOTALS.map((total) => `SUM(${total.ofRow}) AS ${total.column}`).join(', ');
  const take = USAGE_TOTALS.map(({ column }) => `${column} = r.${column} - d.${column}`).join(', ');
  const same = rollup.dimensions.map(([column]) => `r.${column} = d.${column}`).join(' AND ');
  return `UPDATE ${rollup.table} AS r SET ${take}
    FROM (SELECT ${dimensions}, ${sums} FROM usage_events WHERE id IN (SELECT id FROM ${ids})
          GROUP BY ${rollup.dimensions.map((_, i) => i + 1).join(', ')}) AS d
    WHERE ${same}`;
}

/** A usage row's attempts column: `[{model, error_class, latency_ms}]`, or null when the first target answered. */
export const attemptsJson = (attempts: UsageEvent['attempts']): string | null =>
  attempts?.length ? JSON.stringify(attempts.map((a) => ({ model: a.model, error_class: a.errorClass, latency_ms: a.latencyMs }))) : null;

/**
 * A usage row's columns by name, as both stores write them (SQLite binds them as named
 * parameters, PostgreSQL reads them from JSON): counts a request did not have as 0, the attempts
 * as JSON, the mode as the store takes it. Every field is named here rather than spread from the
 * row: on the settlement path, a spread that adds fields costs V8 microseconds a field (a fresh
 * hidden class each time).
 */
export function usageColumns<Mode>(row: UsageEvent, charge: { costMicro: number; chargedMicro: number | null }, livemode: Mode) {
  return {
    request_id: row.requestId,
    app_uuid: row.appUuid,
    livemode,
    key_id: row.keyId,
    address: row.address,
    provider: row.provider,
    model: row.model,
    operation: row.operation,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cache_read_tokens: row.cacheReadTokens ?? 0,
    cache_write_tokens: row.cacheWriteTokens ?? 0,
    cache_write_1h_tokens: row.cacheWrite1hTokens ?? 0,
    reasoning_tokens: row.reasoningTokens ?? 0,
    cost_micro: charge.costMicro,
    charged_micro: charge.chargedMicro,
    latency_ms: row.latencyMs,
    ttft_ms: row.ttftMs,
    status: row.status,
    error_code: row.errorCode,
    attempts: attemptsJson(row.attempts),
    created_at: row.at,
  };
}
