import { DAY_KEY_LENGTH, HOUR_KEY_LENGTH } from './usage-window.js';
import { USAGE_ROLLUPS, fillRollupSql, subtractFromRollupSql } from './usage-rollups.js';

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

/**
 * One usage row per request (SQLite 24, PostgreSQL 13): the row is what makes a settlement
 * idempotent, since a settlement that finds its request's row written moves no money and writes
 * nothing (a grouped PostgreSQL settlement retried alone after its COMMIT's reply was lost).
 * Before, such a retry could write a request's row twice: the first row of each request stays,
 * the others leave the rollups and the table. Built from today's rollups, as
 * backfillUsageRollupsSql is (the next change to them freezes it here as text); the same
 * statements on SQLite and PostgreSQL.
 */
export const oneUsageRowPerRequestSql = `
  CREATE TEMPORARY TABLE usage_duplicates AS
    SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY request_id ORDER BY id) AS n FROM usage_events) AS numbered WHERE n > 1;
  ${USAGE_ROLLUPS.map((rollup) => subtractFromRollupSql(rollup, 'usage_duplicates')).join(';\n  ')};
  DELETE FROM usage_events WHERE id IN (SELECT id FROM usage_duplicates);
  DROP TABLE usage_duplicates;
  CREATE UNIQUE INDEX usage_events_request ON usage_events (request_id);`;
