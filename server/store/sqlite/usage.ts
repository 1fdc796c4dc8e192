import type { Db } from './database.js';
import { createUsageWriter } from './usage-rows.js';
import { HOUR_KEY_LENGTH, splitUsageWindow } from '../usage-window.js';
import type { Store, UsageFilter, UsageTotals } from '../types.js';

// `@address IS NULL` reports on the whole app; otherwise on one user of it.
const RAW = `FROM usage_events WHERE app_uuid = @appUuid AND (@address IS NULL OR address = @address)`;
const RAW_COLUMNS = `substr(created_at, 1, ${HOUR_KEY_LENGTH}), COALESCE(address, ''), provider, model, 1, status = 'refused',
  input_tokens, output_tokens, COALESCE(charged_micro, 0)`;
/**
 * The window's usage as rollup-shaped rows: whole hours from the rollups, the partial hours at
 * either edge from the usage rows (usage-window.ts). `who` is '' for API-key requests.
 */
const SOURCE = `(
  SELECT hour, address AS who, provider, model, requests, refused, input_tokens, output_tokens, charged_micro
  FROM usage_hourly WHERE app_uuid = @appUuid AND hour >= @fromHour AND hour < @toHour AND (@address IS NULL OR address = @address)
  UNION ALL SELECT ${RAW_COLUMNS} ${RAW} AND created_at >= @start AND created_at < @headEnd
  UNION ALL SELECT ${RAW_COLUMNS} ${RAW} AND created_at >= @tailStart AND created_at <= @end
)`;

const TOTALS = `SUM(requests) AS requests, SUM(refused) AS refused, SUM(input_tokens) AS inputTokens,
  SUM(output_tokens) AS outputTokens, SUM(charged_micro) AS chargedMicro`;

const params = (filter: UsageFilter) => ({ ...filter, address: filter.address ?? null, ...splitUsageWindow(filter) });

export function createUsageRepository(db: Db): Store['usage'] {
  const byModel = db.prepare(
    `SELECT provider, model, ${TOTALS} FROM ${SOURCE} GROUP BY provider, model ORDER BY chargedMicro DESC, provider, model`,
  );
  const byBucket = db.prepare(`SELECT substr(hour, 1, @width) AS bucket, ${TOTALS} FROM ${SOURCE} GROUP BY bucket ORDER BY bucket`);
  const byUser = db.prepare(
    `SELECT NULLIF(who, '') AS address, ${TOTALS} FROM ${SOURCE} GROUP BY who
     ORDER BY chargedMicro DESC, requests DESC, who LIMIT @limit OFFSET @offset`,
  );
  const countUsers = db.prepare<Record<string, unknown>, { n: number }>(`SELECT COUNT(DISTINCT who) AS n FROM ${SOURCE}`);
  const write = db.transaction(createUsageWriter(db));

  type Totals = UsageTotals;
  return {
    async record(event) {
      write({ ...event, chargedMicro: 0 });
    },
    async byModel(filter) {
      return byModel.all(params(filter)) as (Totals & { provider: string; model: string })[];
    },
    async byBucket(filter, granularity) {
      return byBucket.all({ ...params(filter), width: granularity === 'day' ? 10 : HOUR_KEY_LENGTH }) as (Totals & { bucket: string })[];
    },
    async byUser(filter, page) {
      const items = byUser.all({ ...params(filter), ...page }) as (Totals & { address: string | null })[];
      return { items, total: countUsers.get(params(filter))?.n ?? 0 };
    },
  };
}
