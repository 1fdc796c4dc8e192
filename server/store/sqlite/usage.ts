import type { Db } from './database.js';
import type { Store, UsageFilter, UsageTotals } from '../types.js';

const TOTALS = `COUNT(*) AS requests, COALESCE(SUM(status = 'refused'), 0) AS refused, COALESCE(SUM(input_tokens), 0) AS inputTokens,
  COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(charged_micro), 0) AS chargedMicro`;

/** The one INSERT of a usage row (metering writes it in the settlement's transaction). */
export const insertUsageSql = `INSERT INTO usage_events (request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
    output_tokens, cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, created_at)
  VALUES (@requestId, @appUuid, @keyId, @address, @provider, @model, @operation, @inputTokens, @outputTokens,
    @costMicro, @chargedMicro, @latencyMs, @ttftMs, @status, @errorCode, @at)`;
// `@address IS NULL` reports on the whole app; otherwise on one user of it.
const WHERE = `app_uuid = @appUuid AND created_at >= @start AND created_at <= @end
  AND (@address IS NULL OR address = @address)`;

const params = (filter: UsageFilter) => ({ ...filter, address: filter.address ?? null });

export function createUsageRepository(db: Db): Store['usage'] {
  const byModel = db.prepare(
    `SELECT provider, model, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY provider, model ORDER BY chargedMicro DESC, provider, model`,
  );
  const byBucket = db.prepare(
    `SELECT substr(created_at, 1, @width) AS bucket, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY bucket ORDER BY bucket`,
  );
  const byUser = db.prepare(
    `SELECT address, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY address
     ORDER BY chargedMicro DESC, requests DESC, address LIMIT @limit OFFSET @offset`,
  );
  const countUsers = db.prepare<Record<string, unknown>, { n: number }>(
    `SELECT COUNT(DISTINCT COALESCE(address, '')) AS n FROM usage_events WHERE ${WHERE}`,
  );

  const insert = db.prepare(insertUsageSql);

  type Totals = UsageTotals;
  return {
    async record(event) {
      insert.run({ ...event, chargedMicro: 0 });
    },
    async byModel(filter) {
      return byModel.all(params(filter)) as (Totals & { provider: string; model: string })[];
    },
    async byBucket(filter, granularity) {
      return byBucket.all({ ...params(filter), width: granularity === 'day' ? 10 : 13 }) as (Totals & { bucket: string })[];
    },
    async byUser(filter, page) {
      const items = byUser.all({ ...params(filter), ...page }) as (Totals & { address: string | null })[];
      return { items, total: countUsers.get(params(filter))?.n ?? 0 };
    },
  };
}
