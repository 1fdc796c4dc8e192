import type { Db } from './database.js';
import type { Store, UsageFilter } from '../types.js';

const TOTALS = `COUNT(*) AS requests, COALESCE(SUM(input_tokens), 0) AS inputTokens,
  COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(cost_micro), 0) AS costMicro`;
// `@address IS NULL` reports on the whole app; otherwise on one user of it.
const WHERE = `app_uuid = @appUuid AND created_at >= @start AND created_at <= @end
  AND (@address IS NULL OR address = @address)`;

const params = (filter: UsageFilter) => ({ ...filter, address: filter.address ?? null });

export function createUsageRepository(db: Db): Store['usage'] {
  const byModel = db.prepare(
    `SELECT provider, model, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY provider, model ORDER BY costMicro DESC, provider, model`,
  );
  const byBucket = db.prepare(
    `SELECT substr(created_at, 1, @width) AS bucket, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY bucket ORDER BY bucket`,
  );
  const byUser = db.prepare(
    `SELECT address, ${TOTALS} FROM usage_events WHERE ${WHERE} GROUP BY address
     ORDER BY costMicro DESC, requests DESC, address LIMIT @limit OFFSET @offset`,
  );
  const countUsers = db.prepare<Record<string, unknown>, { n: number }>(
    `SELECT COUNT(DISTINCT COALESCE(address, '')) AS n FROM usage_events WHERE ${WHERE}`,
  );

  type Totals = { requests: number; inputTokens: number; outputTokens: number; costMicro: number };
  return {
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
