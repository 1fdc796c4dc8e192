import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH } from './usage-window.js';

const TOTALS = 'requests, refused, input_tokens, output_tokens, charged_micro';
const SUMS = `COUNT(*), SUM(CASE WHEN status = 'refused' THEN 1 ELSE 0 END), SUM(input_tokens), SUM(output_tokens),
  SUM(COALESCE(charged_micro, 0))`;

/**
 * Builds the usage rollups (usage-window.ts) from the usage rows, into empty rollup tables; the
 * same statements on SQLite and PostgreSQL. Migrations SQLite 15 and PostgreSQL 3 run it, so it is
 * frozen as released; the usage-report benchmark runs it after its bulk insert.
 */
export const backfillUsageRollupsSql = `
  INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, ${TOTALS})
    SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), COALESCE(address, ''), COALESCE(key_id, ''), provider, model, ${SUMS}
    FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6;
  INSERT INTO usage_hourly_models (app_uuid, hour, provider, model, ${TOTALS})
    SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), provider, model, ${SUMS} FROM usage_events GROUP BY 1, 2, 3, 4;
  INSERT INTO usage_daily_users (app_uuid, day, address, ${TOTALS})
    SELECT app_uuid, substr(created_at, 1, ${DAY_KEY_LENGTH}), COALESCE(address, ''), ${SUMS} FROM usage_events GROUP BY 1, 2, 3;`;
