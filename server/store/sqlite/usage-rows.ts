import type { Db } from './database.js';
import { HOUR_KEY_LENGTH } from '../usage-window.js';
import type { UsageEvent } from '../types.js';

/**
 * Writing usage: each usage row is inserted together with its addition to the hourly rollup the
 * reports read (see usage-window.ts), in the caller's transaction, so the two never disagree.
 * Rollup rows keep '' for a missing address or key: a primary key treats NULLs as distinct, and
 * the reports already count API-key requests (address null) as one user.
 */

const insertUsageSql = `INSERT INTO usage_events (request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
    output_tokens, cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, created_at)
  VALUES (@requestId, @appUuid, @keyId, @address, @provider, @model, @operation, @inputTokens, @outputTokens,
    @costMicro, @chargedMicro, @latencyMs, @ttftMs, @status, @errorCode, @at)`;

const addToRollupSql = `INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, requests, refused,
    input_tokens, output_tokens, charged_micro)
  VALUES (@appUuid, substr(@at, 1, ${HOUR_KEY_LENGTH}), COALESCE(@address, ''), COALESCE(@keyId, ''), @provider, @model, 1,
    @status = 'refused', @inputTokens, @outputTokens, @chargedMicro)
  ON CONFLICT (app_uuid, hour, address, key_id, provider, model) DO UPDATE SET
    requests = requests + excluded.requests, refused = refused + excluded.refused,
    input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
    charged_micro = charged_micro + excluded.charged_micro`;

/**
 * Builds the rollups from the usage rows (into an empty usage_hourly). Migration 15 runs it, so
 * it is frozen as released; the usage-report benchmark runs it after its bulk insert.
 */
export const backfillUsageRollupsSql = `INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, requests, refused,
    input_tokens, output_tokens, charged_micro)
  SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), COALESCE(address, ''), COALESCE(key_id, ''), provider, model, COUNT(*),
    SUM(status = 'refused'), SUM(input_tokens), SUM(output_tokens), SUM(COALESCE(charged_micro, 0))
  FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6`;

/** Writes one usage row and its rollup; run it inside a transaction. */
export function createUsageWriter(db: Db): (row: UsageEvent & { chargedMicro: number }) => void {
  const insert = db.prepare(insertUsageSql);
  const addToRollup = db.prepare(addToRollupSql);
  return (row) => {
    insert.run(row);
    addToRollup.run(row);
  };
}
