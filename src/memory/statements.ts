import type { MemoryDb } from './database.js';

/** Chunks still to embed with `@model`: never embedded, or embedded with another model. */
const PENDING = 'c.model IS NULL OR c.model < @model OR c.model > @model';

/** Every statement the memory runs, prepared once per open file. */
export function prepareStatements(db: MemoryDb) {
  return {
    insertConversation: db.prepare('INSERT INTO conversations (id, title, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
    setModel: db.prepare('UPDATE conversations SET model = ? WHERE id = ?'),
    getConversation: db.prepare('SELECT * FROM conversations WHERE id = ?'),
    listConversations: db.prepare('SELECT * FROM conversations ORDER BY updated_at DESC, rowid DESC LIMIT ?'),
    setTitle: db.prepare('UPDATE conversations SET title = ? WHERE id = ?'),
    touchConversation: db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?'),
    insertMessage: db.prepare(
      'INSERT INTO messages (conversation_id, role, content, tool_calls, tool_call_id, cancelled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    getMessage: db.prepare('SELECT * FROM messages WHERE id = ?'),
    listMessages: db.prepare('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id'),
    insertMessageChunk: db.prepare('INSERT INTO chunks (message_id, text) VALUES (?, ?)'),
    insertVaultChunk: db.prepare('INSERT INTO chunks (vault_rowid, text) VALUES (?, ?)'),
    deleteVaultChunks: db.prepare('DELETE FROM chunks WHERE vault_rowid = ?'),
    insertVault: db.prepare('INSERT INTO vault_entries (id, scope, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
    updateVault: db.prepare('UPDATE vault_entries SET content = ?, scope = ?, updated_at = ? WHERE rowid = ?'),
    deleteVault: db.prepare('UPDATE vault_entries SET deleted_at = ? WHERE rowid = ?'),
    getVault: db.prepare('SELECT * FROM vault_entries WHERE id = ? AND deleted_at IS NULL'),
    getVaultByRowid: db.prepare('SELECT * FROM vault_entries WHERE rowid = ? AND deleted_at IS NULL'),
    listVault: db.prepare('SELECT * FROM vault_entries WHERE deleted_at IS NULL ORDER BY updated_at DESC, rowid DESC'),
    pending: db.prepare(`SELECT c.id, c.text, c.vault_rowid FROM chunks c WHERE ${PENDING} LIMIT @limit`),
    pendingCount: db.prepare(`SELECT count(*) FROM chunks c WHERE ${PENDING}`).pluck(),
    nextSeq: db.prepare('SELECT ifnull(max(embedded_seq), 0) + 1 FROM chunks').pluck(),
    // A chunk another process has embedded with this model meanwhile keeps its vector.
    storeEmbedding: db.prepare(
      'UPDATE chunks SET model = @model, embedding = @embedding, embedded_seq = @seq WHERE id = @id AND model IS NOT @model',
    ),
    storedLength: db.prepare('SELECT length(embedding) FROM chunks WHERE model = ? LIMIT 1').pluck(),
    /** Message vectors of a model embedded after a batch number. */
    messageVectors: db
      .prepare(
        `SELECT c.embedded_seq, c.message_id, m.conversation_id, m.role, c.embedding
           FROM chunks c INDEXED BY chunks_embedded JOIN messages m ON m.id = c.message_id
          WHERE c.embedded_seq > ? AND c.model = ?`,
      )
      .raw(),
    vaultVectors: db
      .prepare(
        `SELECT c.vault_rowid, v.scope, c.embedding
           FROM chunks c INDEXED BY chunks_vault JOIN vault_entries v ON v.rowid = c.vault_rowid
          WHERE c.vault_rowid IS NOT NULL AND c.model = ? AND v.deleted_at IS NULL`,
      )
      .raw(),
  };
}
