import type { Query, Sql } from './database.js';
import { HOUR_KEY_LENGTH, splitUsageWindow } from '../usage-window.js';
import type { Store, UsageEvent, UsageFilter, UsageTotals } from '../types.js';

// SUM of a BIGINT is NUMERIC in PostgreSQL (a string to postgres.js): cast back to BIGINT so the
// totals come back as numbers, as SQLite's do.
const TOTALS = `SUM(requests)::bigint AS requests, SUM(refused)::bigint AS refused,
  SUM(input_tokens)::bigint AS "inputTokens", SUM(output_tokens)::bigint AS "outputTokens",
  SUM(charged_micro)::bigint AS "chargedMicro"`;

type TotalsRow = UsageTotals;

const totals = (row: TotalsRow): UsageTotals => ({
  requests: row.requests,
  refused: row.refused,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  chargedMicro: row.chargedMicro,
});

/** The columns of a usage row, in the order `usageWrites` gives them. */
const USAGE_COLUMNS = `request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
  output_tokens, cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, created_at`;

/**
 * The usage row of a request and its addition to the hourly rollup the reports read
 * (usage-window.ts), as two CTEs of the caller's statement (`WITH …, ${usageWrites(…)} SELECT …`),
 * so both are written by the statement that settles the request, in one round trip. `from`
 * names the CTE whose one row's `charged` is what was charged. Rollup rows keep '' for a missing
 * address or key: a primary key treats NULLs as distinct, and the reports already count API-key
 * requests (address null) as one user.
 */
export function usageWrites(q: Query, event: UsageEvent, costMicro: number, from: string) {
  const source = q.unsafe(from);
  return q`
    usage_row AS (
      INSERT INTO usage_events (${q.unsafe(USAGE_COLUMNS)})
      SELECT ${event.requestId}, ${event.appUuid}, ${event.keyId}, ${event.address}, ${event.provider}, ${event.model},
        ${event.operation}, ${event.inputTokens}, ${event.outputTokens}, ${costMicro}, charged,
        ${event.latencyMs}, ${event.ttftMs}, ${event.status}, ${event.errorCode}, ${event.at}
      FROM ${source}
    ), usage_rollup AS (
      INSERT INTO usage_hourly AS h (app_uuid, hour, address, key_id, provider, model, requests, refused,
        input_tokens, output_tokens, charged_micro)
      SELECT ${event.appUuid}, substr(${event.at}::text, 1, ${HOUR_KEY_LENGTH}::int), ${event.address ?? ''}, ${event.keyId ?? ''},
        ${event.provider}, ${event.model}, 1, ${event.status === 'refused' ? 1 : 0}, ${event.inputTokens}, ${event.outputTokens}, charged
      FROM ${source}
      ON CONFLICT (app_uuid, hour, address, key_id, provider, model) DO UPDATE SET
        requests = h.requests + 1, refused = h.refused + EXCLUDED.refused,
        input_tokens = h.input_tokens + EXCLUDED.input_tokens, output_tokens = h.output_tokens + EXCLUDED.output_tokens,
        charged_micro = h.charged_micro + EXCLUDED.charged_micro
    )`;
}

/**
 * Builds the rollups from the usage rows (into an empty usage_hourly). Migration 3 runs it, so
 * it is frozen as released.
 */
export const backfillUsageRollupsSql = `INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, requests, refused,
    input_tokens, output_tokens, charged_micro)
  SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), COALESCE(address, ''), COALESCE(key_id, ''), provider, model, COUNT(*),
    COUNT(*) FILTER (WHERE status = 'refused'), SUM(input_tokens), SUM(output_tokens), SUM(COALESCE(charged_micro, 0))
  FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6`;

/**
 * Usage reports, with SQLite's ordering: text sorts by bytes (COLLATE "C", whatever the
 * database's collation) and a null address sorts first, as it does in SQLite.
 */
export function createUsageRepository(sql: Sql): Store['usage'] {
  /**
   * The window's usage as rollup-shaped rows: whole hours from the rollups, the partial hours at
   * either edge from the usage rows (usage-window.ts). `who` is '' for API-key requests; a null
   * filter address reports on the whole app, otherwise on one user of it.
   */
  const source = (filter: UsageFilter) => {
    const parts = splitUsageWindow(filter);
    const address = filter.address ?? null;
    const raw = (from: string, to: string, toIncluded: boolean) => sql`
      SELECT substr(created_at, 1, ${HOUR_KEY_LENGTH}::int) COLLATE "C", COALESCE(address, ''), provider, model, 1,
        (status = 'refused')::int, input_tokens, output_tokens, COALESCE(charged_micro, 0)
      FROM usage_events WHERE app_uuid = ${filter.appUuid} AND (${address}::text IS NULL OR address = ${address}::text)
        AND created_at >= ${from} AND created_at ${toIncluded ? sql`<=` : sql`<`} ${to}`;
    return sql`(
      SELECT hour, address AS who, provider, model, requests, refused, input_tokens, output_tokens, charged_micro
      FROM usage_hourly WHERE app_uuid = ${filter.appUuid} AND hour >= ${parts.fromHour} AND hour < ${parts.toHour}
        AND (${address}::text IS NULL OR address = ${address}::text)
      UNION ALL ${raw(filter.start, parts.headEnd, false)}
      UNION ALL ${raw(parts.tailStart, filter.end, true)}
    ) AS window_usage`;
  };

  return {
    async record(event) {
      // Nothing was charged: a refused request moves no money.
      await sql`WITH refusal AS (SELECT 0::bigint AS charged), ${usageWrites(sql, event, 0, 'refusal')} SELECT 1`;
    },

    async byModel(filter) {
      const rows = await sql<(TotalsRow & { provider: string; model: string })[]>`
        SELECT provider, model, ${sql.unsafe(TOTALS)} FROM ${source(filter)}
        GROUP BY provider, model ORDER BY "chargedMicro" DESC, provider COLLATE "C", model COLLATE "C"`;
      return rows.map((row) => ({ provider: row.provider, model: row.model, ...totals(row) }));
    },

    async byBucket(filter, granularity) {
      const width = granularity === 'day' ? 10 : HOUR_KEY_LENGTH;
      const rows = await sql<(TotalsRow & { bucket: string })[]>`
        SELECT substr(hour, 1, ${width}::int) AS bucket, ${sql.unsafe(TOTALS)}
        FROM ${source(filter)} GROUP BY 1 ORDER BY 1`;
      return rows.map((row) => ({ bucket: row.bucket, ...totals(row) }));
    },

    async byUser(filter, page) {
      const rows = await sql<(TotalsRow & { address: string | null })[]>`
        SELECT NULLIF(who, '') AS address, ${sql.unsafe(TOTALS)} FROM ${source(filter)} GROUP BY who
        ORDER BY "chargedMicro" DESC, requests DESC, who COLLATE "C"
        LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`SELECT COUNT(DISTINCT who) AS n FROM ${source(filter)}`;
      return { items: rows.map((row) => ({ address: row.address, ...totals(row) })), total: count?.n ?? 0 };
    },
  };
}
