import type { RunResult, Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import { PENDING_ROWS, USAGE_ROLLUPS, addToRollupSql, usageColumns } from '../usage-rollups.js';
import type { UsageEvent } from '../types.js';

/**
 * Writing usage: each usage row is inserted in the caller's transaction, pending, and added to the
 * rollups the reports read by a later roll (usage-rollups.ts), which moves the mark past it in the
 * same transaction: a row is in the rollups or after the mark, never both, never neither.
 */

/**
 * The one INSERT of a usage row (the usage-report benchmark fills a database with it too), pending,
 * its values bound by position in `usageColumns`' order (by name cost a microsecond more a
 * settlement: better-sqlite3 looks each name up on the object). The statement is made with the
 * first row, from its columns' names, so the two cannot disagree. A run whose `changes` is 0 wrote
 * nothing: the request has its row already.
 */
export function prepareUsageInsert(db: Db): (row: UsageEvent, charge: { costMicro: number; chargedMicro: number | null }) => RunResult {
  let insert: Statement<unknown[]> | null = null;
  return (row, charge) => {
    const columns = usageColumns(row, charge, row.livemode ? 1 : 0);
    insert ??= db.prepare(
      `INSERT INTO usage_events (${Object.keys(columns).join(', ')}) VALUES (${Object.keys(columns).map(() => '?').join(', ')})
       ON CONFLICT (request_id) DO NOTHING`,
    );
    return insert.run(Object.values(columns));
  };
}

/**
 * Writes one usage row, pending; run it inside a transaction. False, writing nothing, when the
 * request has its row already (a request has one).
 */
export function createUsageWriter(db: Db): (row: UsageEvent, chargedMicro: number) => boolean {
  const rows = createGroupUsageWriter(db);
  return (row, chargedMicro) => rows.insert(row, row.costMicro, chargedMicro) !== null;
}

/** Usage rows written one by one (a settlement group), inside the caller's transaction. */
export function createGroupUsageWriter(db: Db) {
  const insert = prepareUsageInsert(db);
  return {
    /** The new row's id, or null (nothing written) when the request has its row already. */
    insert(row: UsageEvent, costMicro: number, chargedMicro: number): number | null {
      const inserted = insert(row, { costMicro, chargedMicro });
      return inserted.changes === 0 ? null : Number(inserted.lastInsertRowid);
    },
  };
}

/**
 * Adds at most `limit` pending rows, oldest first, to the rollups and moves the mark past them, in
 * one transaction; answers how many.
 */
export function createUsageRoller(db: Db): (limit: number) => number {
  const batch = db.prepare<[number], { last: number | null; rows: number }>(
    `SELECT MAX(id) AS last, COUNT(*) AS rows FROM (
       SELECT id FROM usage_events WHERE ${PENDING_ROWS.sqlite} ORDER BY id LIMIT ?)`,
  );
  const add = USAGE_ROLLUPS.map((rollup) =>
    db.prepare<{ last: number }>(addToRollupSql(rollup, `usage_events WHERE ${PENDING_ROWS.sqlite} AND id <= @last`)),
  );
  const mark = db.prepare<{ last: number }>('UPDATE usage_rollup_mark SET rolled_through = @last');
  return db.transaction((limit: number) => {
    const { last, rows } = batch.get(limit) ?? { last: null, rows: 0 };
    if (last === null) return 0;
    for (const statement of add) statement.run({ last });
    mark.run({ last });
    return rows;
  });
}
