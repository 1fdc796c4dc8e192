import type { Db } from './database.js';
import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH } from '../usage-window.js';
import type { UsageEvent } from '../types.js';

/**
 * Writing usage: each usage row is inserted together with its additions to the rollups the
 * reports read (see usage-window.ts), in the caller's transaction, so they never disagree.
 * Rollup rows keep '' for a missing address or key: a primary key treats NULLs as distinct, and
 * the reports already count API-key requests (address null) as one user.
 */

/** The one INSERT of a usage row (the usage-report benchmark fills a database with it too). */
export const insertUsageSql = `INSERT INTO usage_events (request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
    output_tokens, cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, created_at)
  VALUES (@requestId, @appUuid, @keyId, @address, @provider, @model, @operation, @inputTokens, @outputTokens,
    @costMicro, @chargedMicro, @latencyMs, @ttftMs, @status, @errorCode, @at)`;

const TOTALS = 'requests, refused, input_tokens, output_tokens, charged_micro';
const ADD_TOTALS = `requests = requests + excluded.requests, refused = refused + excluded.refused,
    input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
    charged_micro = charged_micro + excluded.charged_micro`;
const ROW_TOTALS = `1, @status = 'refused', @inputTokens, @outputTokens, @chargedMicro`;
const HOUR = `substr(@at, 1, ${HOUR_KEY_LENGTH})`;

const addToRollupsSql = [
  `INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, ${TOTALS})
    VALUES (@appUuid, ${HOUR}, COALESCE(@address, ''), COALESCE(@keyId, ''), @provider, @model, ${ROW_TOTALS})
    ON CONFLICT (app_uuid, hour, address, key_id, provider, model) DO UPDATE SET ${ADD_TOTALS}`,
  `INSERT INTO usage_hourly_models (app_uuid, hour, provider, model, ${TOTALS})
    VALUES (@appUuid, ${HOUR}, @provider, @model, ${ROW_TOTALS})
    ON CONFLICT (app_uuid, hour, provider, model) DO UPDATE SET ${ADD_TOTALS}`,
  `INSERT INTO usage_daily_users (app_uuid, day, address, ${TOTALS})
    VALUES (@appUuid, substr(@at, 1, ${DAY_KEY_LENGTH}), COALESCE(@address, ''), ${ROW_TOTALS})
    ON CONFLICT (app_uuid, day, address) DO UPDATE SET ${ADD_TOTALS}`,
];

/** Writes one usage row and its rollups; run it inside a transaction. */
export function createUsageWriter(db: Db): (row: UsageEvent & { chargedMicro: number }) => void {
  const insert = db.prepare(insertUsageSql);
  const addToRollups = addToRollupsSql.map((sql) => db.prepare(sql));
  return (row) => {
    insert.run(row);
    for (const add of addToRollups) add.run(row);
  };
}
