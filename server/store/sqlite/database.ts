import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export type Db = Database.Database;

/**
 * How much a commit survives. `normal` (WAL without a sync per commit) survives the process
 * being killed at any moment, which the crash test proves; `full` syncs every commit, so it also
 * survives losing power, at the price of a disk flush per transaction (settlements are grouped).
 */
export type Synchronous = 'normal' | 'full';

/** Opens (or creates) the database file, tunes it for a server, and applies pending migrations. */
export function openDatabase(file: string, synchronous: Synchronous = 'normal'): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`the database is at schema version ${current}, newer than this server (${latest}); upgrade svc`);
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
