import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../server/store/open.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * The two backends' migrations describe the same tables with the same columns, except where a
 * backend keeps something the other keeps elsewhere by design (listed, with why). A migration
 * written for one backend and forgotten for the other fails here.
 */
const BY_DESIGN = {
  onlySqlite: {
    usage_rollup_mark: 'the last usage row in the rollups: one writer commits rows in the order of their ids (PostgreSQL lists the pending ones)',
  } as Record<string, string>,
  onlyPostgres: {
    holds: 'holds of every instance, so another instance sees them (SQLite: in memory, one process)',
    instances: 'the instances alive, whose holds are released when one dies',
    leases: 'which instance runs a recurring task (SQLite: the one process always does)',
    rate_counters: 'rate-limit counters shared by the instances (SQLite: in memory)',
    breakers: 'circuit breakers shared by the instances (SQLite: in memory)',
    usage_pending: 'the usage rows not in the rollups yet: instances commit rows in no order of their ids (SQLite keeps a mark)',
  } as Record<string, string>,
  /** Columns one backend has that the other does not, by table. */
  columns: {
    'responses.instance_id': 'the instance running a background response, which stops it on a cancel from another instance',
  } as Record<string, string>,
};

type Tables = Map<string, Set<string>>;

async function sqliteTables(): Promise<Tables> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-schema-'));
  try {
    const store = await openStore(join(dir, 'svc.db'));
    await store.close();
    const db = new Database(join(dir, 'svc.db'), { readonly: true });
    const tables: Tables = new Map();
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'svc_schema'").all() as { name: string }[];
    for (const { name } of names) tables.set(name, new Set((db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((column) => column.name)));
    db.close();
    return tables;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresTables(): Promise<Tables> {
  const schema = await freshSchema();
  const sql = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ table_name: string; column_name: string }[]>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = ${schema.schema} AND table_name <> 'svc_schema'`;
    const tables: Tables = new Map();
    for (const row of rows) {
      if (!tables.has(row.table_name)) tables.set(row.table_name, new Set());
      tables.get(row.table_name)!.add(row.column_name);
    }
    return tables;
  } finally {
    await sql.end();
    await schema.drop();
  }
}

describe.runIf(testDatabaseUrl)('the SQLite and PostgreSQL schemas', () => {
  let lite: Tables;
  let pg: Tables;
  beforeAll(async () => {
    [lite, pg] = await Promise.all([sqliteTables(), postgresTables()]);
  });

  it('have the same tables, but for those one backend keeps by design', () => {
    const onlyLite = [...lite.keys()].filter((table) => !pg.has(table)).sort();
    const onlyPg = [...pg.keys()].filter((table) => !lite.has(table)).sort();
    expect(onlyLite).toEqual(Object.keys(BY_DESIGN.onlySqlite).sort());
    expect(onlyPg).toEqual(Object.keys(BY_DESIGN.onlyPostgres).filter((table) => pg.has(table)).sort());
  });

  it('give each shared table the same columns', () => {
    const drift: string[] = [];
    for (const [table, columns] of lite) {
      const other = pg.get(table);
      if (!other) continue;
      for (const column of columns) if (!other.has(column) && !BY_DESIGN.columns[`${table}.${column}`]) drift.push(`${table}.${column} only on SQLite`);
      for (const column of other) if (!columns.has(column) && !BY_DESIGN.columns[`${table}.${column}`]) drift.push(`${table}.${column} only on PostgreSQL`);
    }
    expect(drift.sort()).toEqual([]);
  });
});
