import { openMemoryDatabase, vectorToBlob } from './database.js';
import { newId } from './memory.js';
import { normalize } from './vector-index.js';

export interface BulkMessage {
  role: 'user' | 'assistant';
  content: string;
  /** One vector per chunk of the message, already computed with `model`. */
  vectors: Float32Array[];
}

/**
 * Writes conversations of messages with precomputed chunk vectors straight into a memory file,
 * in one transaction, bypassing chunking and `embed`. For benchmarks and data imports; run it
 * before `openMemory` opens the file. Returns the ids of the conversations created.
 */
export function bulkInsertEmbedded(file: string, model: string, conversations: BulkMessage[][], createdAt = new Date()): string[] {
  const db = openMemoryDatabase(file);
  try {
    const insertConversation = db.prepare('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, NULL, ?, ?)');
    const insertMessage = db.prepare('INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, ?, ?, ?)');
    const insertChunk = db.prepare('INSERT INTO chunks (message_id, text, model, embedding, embedded_seq) VALUES (?, ?, ?, ?, ?)');
    const nextSeq = db.prepare('SELECT ifnull(max(embedded_seq), 0) + 1 FROM chunks').pluck();
    const time = createdAt.toISOString();
    return db.transaction(() => {
      const seq = nextSeq.get() as number;
      return conversations.map((messages) => {
        const id = newId('conv');
        insertConversation.run(id, time, time);
        for (const message of messages) {
          const { lastInsertRowid } = insertMessage.run(id, message.role, message.content, time);
          for (const vector of message.vectors) {
            insertChunk.run(lastInsertRowid, message.content, model, vectorToBlob(normalize(Float32Array.from(vector))), seq);
          }
        }
        return id;
      });
    }).immediate();
  } finally {
    db.close();
  }
}
