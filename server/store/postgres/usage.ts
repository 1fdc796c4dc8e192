import type { Query, Sql } from './database.js';
import type { Store, UsageEvent, UsageFilter, UsageTotals } from '../types.js';

// SUM of a BIGINT is NUMERIC in PostgreSQL (a string to postgres.js): cast back to BIGINT so the
// totals come back as numbers, as SQLite's do. COUNT is already BIGINT.
const TOTALS = `COUNT(*) AS requests, COUNT(*) FILTER (WHERE status = 'refused') AS refused,
  COALESCE(SUM(input_tokens), 0)::bigint AS "inputTokens", COALESCE(SUM(output_tokens), 0)::bigint AS "outputTokens",
  COALESCE(SUM(charged_micro), 0)::bigint AS "chargedMicro"`;

type TotalsRow = UsageTotals;

const totals = (row: TotalsRow): UsageTotals => ({
  requests: row.requests,
  refused: row.refused,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  chargedMicro: row.chargedMicro,
});

/** The one INSERT of a usage row (metering writes it in the settlement's transaction). */
/** The columns of a usage row, in the order `insertUsage` and metering's settlement give them. */
export const USAGE_COLUMNS = `request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
  output_tokens, cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, created_at`;

export async function insertUsage(q: Query, event: UsageEvent & { chargedMicro: number | null }): Promise<void> {
  await q`
    INSERT INTO usage_events (${q.unsafe(USAGE_COLUMNS)})
    VALUES (${event.requestId}, ${event.appUuid}, ${event.keyId}, ${event.address}, ${event.provider}, ${event.model},
      ${event.operation}, ${event.inputTokens}, ${event.outputTokens}, ${event.costMicro}, ${event.chargedMicro},
      ${event.latencyMs}, ${event.ttftMs}, ${event.status}, ${event.errorCode}, ${event.at})`;
}

/**
 * Usage reports, with SQLite's ordering: text sorts by bytes (COLLATE "C", whatever the
 * database's collation) and a null address sorts first, as it does in SQLite.
 */
export function createUsageRepository(sql: Sql): Store['usage'] {
  // A null address reports on the whole app; otherwise on one user of it.
  const where = (filter: UsageFilter) => sql`
    app_uuid = ${filter.appUuid} AND created_at >= ${filter.start} AND created_at <= ${filter.end}
    AND (${filter.address ?? null}::text IS NULL OR address = ${filter.address ?? null}::text)`;

  return {
    async record(event) {
      // Nothing was charged: a refused request moves no money.
      await insertUsage(sql, { ...event, chargedMicro: 0 });
    },

    async byModel(filter) {
      const rows = await sql<(TotalsRow & { provider: string; model: string })[]>`
        SELECT provider, model, ${sql.unsafe(TOTALS)} FROM usage_events WHERE ${where(filter)}
        GROUP BY provider, model ORDER BY "chargedMicro" DESC, provider COLLATE "C", model COLLATE "C"`;
      return rows.map((row) => ({ provider: row.provider, model: row.model, ...totals(row) }));
    },

    async byBucket(filter, granularity) {
      const width = granularity === 'day' ? 10 : 13;
      const rows = await sql<(TotalsRow & { bucket: string })[]>`
        SELECT substr(created_at, 1, ${width}::int) COLLATE "C" AS bucket, ${sql.unsafe(TOTALS)}
        FROM usage_events WHERE ${where(filter)} GROUP BY 1 ORDER BY 1`;
      return rows.map((row) => ({ bucket: row.bucket, ...totals(row) }));
    },

    async byUser(filter, page) {
      const rows = await sql<(TotalsRow & { address: string | null })[]>`
        SELECT address, ${sql.unsafe(TOTALS)} FROM usage_events WHERE ${where(filter)} GROUP BY address
        ORDER BY "chargedMicro" DESC, requests DESC, address COLLATE "C" NULLS FIRST
        LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`
        SELECT COUNT(DISTINCT COALESCE(address, '')) AS n FROM usage_events WHERE ${where(filter)}`;
      return { items: rows.map((row) => ({ address: row.address, ...totals(row) })), total: count?.n ?? 0 };
    },
  };
}
