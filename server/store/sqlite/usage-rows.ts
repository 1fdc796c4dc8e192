import type { Db } from './database.js';
import { USAGE_ROLLUPS, addToRollupSql, usageColumns } from '../usage-rollups.js';
import type { UsageEvent } from '../types.js';

/**
 * Writing usage: each usage row is inserted together with its additions to the rollups the
 * reports read (usage-rollups.ts), in the caller's transaction, so they never disagree.
 */

/** The one INSERT of a usage row (the usage-report benchmark fills a database with it too); its parameters are `usageRowParams`'. */
export const insertUsageSql = `INSERT INTO usage_events (request_id, app_uuid, livemode, key_id, address, provider, model, operation,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
    cost_micro, charged_micro, latency_ms, ttft_ms, status, error_code, attempts, created_at)
  VALUES (@request_id, @app_uuid, @livemode, @key_id, @address, @provider, @model, @operation,
    @input_tokens, @output_tokens, @cache_read_tokens, @cache_write_tokens, @cache_write_1h_tokens, @reasoning_tokens,
    @cost_micro, @charged_micro, @latency_ms, @ttft_ms, @status, @error_code, @attempts, @created_at)
  ON CONFLICT (request_id) DO NOTHING`;

/** A usage row as SQLite binds it (`insertUsageSql`'s parameters): the mode as 0 or 1. */
export const usageRowParams = (row: UsageEvent, charge: { costMicro: number; chargedMicro: number | null }) => usageColumns(row, charge, row.livemode ? 1 : 0);

/**
 * Writes one usage row and its rollups; run it inside a transaction. False, writing nothing, when
 * the request has its row already (a request has one).
 */
export function createUsageWriter(db: Db): (row: UsageEvent, chargedMicro: number) => boolean {
  const rows = createGroupUsageWriter(db);
  return (row, chargedMicro) => {
    const id = rows.insert(row, row.costMicro, chargedMicro);
    if (id === null) return false;
    rows.addToRollups([id]);
    return true;
  };
}

/**
 * Usage rows written one by one and added to the rollups together (a settlement group: one
 * statement per rollup for the whole group, not one per row). Both inside the caller's
 * transaction, so rows and rollups never disagree.
 */
export function createGroupUsageWriter(db: Db) {
  const insert = db.prepare(insertUsageSql);
  // The rows just inserted, read back by their ids: the rollups take their values from their columns.
  const addOne = USAGE_ROLLUPS.map((rollup) => db.prepare(addToRollupSql(rollup, 'usage_events WHERE id = @id')));
  const addMany = USAGE_ROLLUPS.map((rollup) => db.prepare(addToRollupSql(rollup, 'usage_events WHERE id IN (SELECT value FROM json_each(@ids))')));
  return {
    /** The new row's id, or null (nothing written) when the request has its row already. */
    insert(row: UsageEvent, costMicro: number, chargedMicro: number): number | null {
      const inserted = insert.run(usageRowParams(row, { costMicro, chargedMicro }));
      return inserted.changes === 0 ? null : Number(inserted.lastInsertRowid);
    },
    /** Adds the rows of `ids` (each once) to every rollup. */
    addToRollups(ids: readonly number[]) {
      if (ids.length === 0) return;
      if (ids.length === 1) for (const add of addOne) add.run({ id: ids[0] });
      else {
        const list = JSON.stringify(ids);
        for (const add of addMany) add.run({ ids: list });
      }
    },
  };
}
