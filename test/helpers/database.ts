import Database from 'better-sqlite3';
import postgres from 'postgres';
import { onPostgres } from './postgres.js';
import type { TestServer } from './server.js';

/** Runs statements on the server's own database (a SQLite file, or its PostgreSQL schema); returns the last one's rows. */
export async function onDatabase(t: TestServer, statements: string[]): Promise<Record<string, unknown>[]> {
  if (onPostgres) {
    const sql = postgres(t.database, { max: 1, onnotice: () => {} });
    try {
      let rows: Record<string, unknown>[] = [];
      for (const statement of statements) rows = [...(await sql.unsafe(statement))];
      return rows;
    } finally {
      await sql.end();
    }
  }
  const db = new Database(t.database);
  try {
    const last = statements.at(-1) as string;
    for (const statement of statements.slice(0, -1)) db.exec(statement);
    return db.prepare(last).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

