import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';

export type MemoryDb = Database.Database;

/**
 * Numbered schema migrations of `memory.db`, applied in order when the file is opened;
 * `PRAGMA user_version` records the last one applied. A migration is never edited once
 * released: add a new one.
 */
const migrations: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE conversations (
        id          TEXT PRIMARY KEY,
        title       TEXT,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
      CREATE INDEX conversations_recent ON conversations (updated_at, id);

      CREATE TABLE messages (
        id               INTEGER PRIMARY KEY,
        conversation_id  TEXT NOT NULL REFERENCES conversations (id),
        role             TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content          TEXT NOT NULL,
        tool_calls       TEXT,
        tool_call_id     TEXT,
        created_at       TEXT NOT NULL
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, id);

      CREATE TABLE vault_entries (
        rowid       INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        scope       TEXT NOT NULL DEFAULT 'private',
        content     TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        deleted_at  TEXT
      );

      -- Pieces of messages and vault entries, with their embedding. model IS NULL: not embedded
      -- yet; a model other than the current one counts as not embedded either. embedded_seq
      -- numbers the batches of embeddings in commit order, so a process finds the vectors that
      -- another one (or itself) has written since it last looked.
      CREATE TABLE chunks (
        id           INTEGER PRIMARY KEY,
        message_id   INTEGER REFERENCES messages (id),
        vault_rowid  INTEGER REFERENCES vault_entries (rowid),
        text         TEXT NOT NULL,
        model        TEXT,
        embedding    BLOB,
        embedded_seq INTEGER,
        CHECK ((message_id IS NULL) <> (vault_rowid IS NULL)),
        CHECK ((model IS NULL) = (embedding IS NULL) AND (model IS NULL) = (embedded_seq IS NULL))
      );
      CREATE INDEX chunks_model ON chunks (model);
      CREATE INDEX chunks_embedded ON chunks (embedded_seq);
      CREATE INDEX chunks_message ON chunks (message_id) WHERE message_id IS NOT NULL;
      CREATE INDEX chunks_vault ON chunks (vault_rowid) WHERE vault_rowid IS NOT NULL;
    `,
  },
  {
    version: 2,
    sql: `
      -- The model a conversation talks to, restored with it (--continue, /resume).
      ALTER TABLE conversations ADD COLUMN model TEXT;
    `,
  },
  {
    version: 3,
    sql: `
      -- An answer the user cut short keeps its "(cancelled)" mark when the conversation is resumed.
      ALTER TABLE messages ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

/**
 * Conversations and vault entries are private: the file is created readable by its owner only,
 * before SQLite opens it (SQLite gives the -wal and -shm files the database's permissions). A
 * file an older svc created world-readable is narrowed, with any -wal and -shm left beside it.
 */
function keepPrivate(file: string): void {
  if (file === ':memory:') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/** Opens (or creates) a memory file in WAL mode and brings its schema up to date. */
export function openMemoryDatabase(file: string): MemoryDb {
  keepPrivate(file);
  // Several chats share the file: a writer waits up to 5 s for another's commit (set first, so
  // even the switch to WAL below waits rather than failing with "database is locked").
  const db = new Database(file, { timeout: 5000 });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const latest = migrations.at(-1)?.version ?? 0;
    const schemaVersion = () => db.pragma('user_version', { simple: true }) as number;
    if (schemaVersion() > latest) {
      throw new Error(`${file} is at memory schema version ${schemaVersion()}, newer than this svc (${latest}); upgrade svc`);
    }
    // Write-locked from its first statement (IMMEDIATE), and the version read again inside: two
    // chats opening a new file at once migrate it once, the second finding it done.
    const migrate = db.transaction(() => {
      const current = schemaVersion();
      for (const migration of migrations) {
        if (migration.version <= current) continue;
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      }
    });
    if (schemaVersion() < latest) migrate.immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A vector as a float32 BLOB (the platform's byte order: little-endian wherever Node runs). */
export function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
