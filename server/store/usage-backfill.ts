import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH } from './usage-window.js';
import { USAGE_ROLLUPS, fillRollupSql } from './usage-rollups.js';

const TOTALS_15 = 'requests, refused, input_tokens, output_tokens, charged_micro';
const SUMS_15 = `COUNT(*), SUM(CASE WHEN status = 'refused' THEN 1 ELSE 0 END), SUM(input_tokens), SUM(output_tokens),
  SUM(COALESCE(charged_micro, 0))`;

/**
 * The rollups as migrations SQLite 15 and PostgreSQL 3 built them (no mode, no cache counts) from
 * the usage rows, into empty rollup tables; frozen as released.
 */
export const backfillUsageRollupsSql15 = `
  INSERT INTO usage_hourly (app_uuid, hour, address, key_id, provider, model, ${TOTALS_15})
    SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), COALESCE(address, ''), COALESCE(key_id, ''), provider, model, ${SUMS_15}
    FROM usage_events GROUP BY 1, 2, 3, 4, 5, 6;
  INSERT INTO usage_hourly_models (app_uuid, hour, provider, model, ${TOTALS_15})
    SELECT app_uuid, substr(created_at, 1, ${HOUR_KEY_LENGTH}), provider, model, ${SUMS_15} FROM usage_events GROUP BY 1, 2, 3, 4;
  INSERT INTO usage_daily_users (app_uuid, day, address, ${TOTALS_15})
    SELECT app_uuid, substr(created_at, 1, ${DAY_KEY_LENGTH}), COALESCE(address, ''), ${SUMS_15} FROM usage_events GROUP BY 1, 2, 3;`;

/**
 * Builds today's rollups (usage-rollups.ts) from the usage rows, into empty rollup tables; the
 * same statements on SQLite and PostgreSQL. Migrations SQLite 23 and PostgreSQL 11 run it (the
 * next change to the rollups freezes it there as text, as backfillUsageRollupsSql15 is); the
 * usage-report benchmark runs it after its bulk insert.
 */
export const backfillUsageRollupsSql = `${USAGE_ROLLUPS.map(fillRollupSql).join(';\n')};`;
