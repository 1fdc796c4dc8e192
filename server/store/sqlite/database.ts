import { closeSync, existsSync, openSync } from 'node:fs';
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
  // Created readable by its owner only; SQLite gives the WAL and shared-memory files the
  // database's own permissions.
  if (file !== ':memory:' && !existsSync(file)) closeSync(openSync(file, 'a', 0o600));
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
    // The pragma is a no-op inside a transaction, so it is set around it.
    if (migration.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      // Taken with the write lock (IMMEDIATE), and checked again under it: two servers starting on
      // one new file (three chats at once, each starting the bundled server) both read version 0,
      // and the second would run the first's migration again ("table developers already exists").
      db.transaction(() => {
        if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
        db.exec(migration.sql);
        if (migration.rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) throw new Error(`migration ${migration.version} would break ${broken.length} foreign keys`);
        }
        db.pragma(`user_version = ${migration.version}`);
      }).immediate();
    } finally {
      if (migration.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}
