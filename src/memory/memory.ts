import { randomBytes } from 'node:crypto';
import { chunkText } from './chunk.js';
import { openMemoryDatabase, vectorToBlob, type MemoryDb } from './database.js';
import { ModelVectors } from './model-vectors.js';
import { normalize } from './vector-index.js';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** An OpenAI tool call as an assistant message carries it. */
export interface ToolCallRecord {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface Conversation {
  id: string;
  title: string | null;
  /** The model it talks to (null for conversations from before models were kept). */
  model: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageInput {
  role: Role;
  content: string;
  toolCalls?: ToolCallRecord[];
  toolCallId?: string;
  /** An answer the user cut short. */
  cancelled?: boolean;
}

export interface StoredMessage {
  id: number;
  conversationId: string;
  role: Role;
  content: string;
  toolCalls: ToolCallRecord[] | null;
  toolCallId: string | null;
  cancelled: boolean;
  createdAt: string;
}

/** Embeds texts with a model: one vector per text, in order. */
export type EmbedFunction = (texts: string[], model: string) => Promise<number[][]>;

export interface MemoryOptions {
  /** The SQLite file, e.g. `~/.svc/memory.db` (`:memory:` for a throwaway store). */
  file: string;
  embed: EmbedFunction;
  embeddingModel: string;
  now?: () => Date;
  /** Texts per `embed` call (default 64). */
  batchSize?: number;
  /** Embed new chunks in the background after each write (default true). */
  embedInBackground?: boolean;
  /** Where failures of background embedding go (they are retried by the next `embedPending`). */
  onBackgroundError?: (error: unknown) => void;
}

export interface MessageSearchOptions {
  /** Most hits (default 8). */
  limit?: number;
  /** Lowest cosine similarity of a hit, 0–1 (default 0.3). */
  minSimilarity?: number;
  /** A conversation whose messages are left out. */
  excludeConversationId?: string | null;
  /** Search assistant messages too (default false: user messages only). */
  includeAssistant?: boolean;
  /** `similarity` (default, most relevant first) or `chronological` (the same hits, oldest first). */
  sortBy?: 'similarity' | 'chronological';
}

export interface MessageHit {
  messageId: number;
  conversationId: string;
  role: Role;
  content: string;
  createdAt: string;
  similarity: number;
}

export interface VaultEntry {
  id: string;
  scope: string;
  content: string;
  createdAt: string;
  updatedAt: string;
}

export interface VaultSaveInput {
  content: string;
  /** The entry to update; without it a new entry is created. */
  id?: string;
  /** Default `private` for a new entry; an update keeps the scope unless given. */
  scope?: string;
}

export interface VaultSaveResult {
  action: 'new' | 'update';
  entry: VaultEntry;
}

export interface VaultSearchOptions {
  /** Most hits (default 5). */
  limit?: number;
  /** Lowest cosine similarity of a hit, 0–1 (default 0.1). */
  minSimilarity?: number;
  /** Only entries in these scopes. */
  scopes?: string[];
}

export interface VaultHit extends VaultEntry {
  similarity: number;
}

export interface Memory {
  readonly conversations: {
    create(input?: { title?: string; model?: string }): Conversation;
    get(id: string): Conversation | null;
    /** Most recently active first. */
    list(limit?: number): Conversation[];
    latest(): Conversation | null;
    setTitle(id: string, title: string): void;
    setModel(id: string, model: string): void;
  };
  readonly messages: {
    /** Stores a message at once (committed before it returns); its embedding follows in the background. */
    append(conversationId: string, message: MessageInput): StoredMessage;
    /** In the order they were appended. */
    list(conversationId: string): StoredMessage[];
  };
  readonly vault: {
    save(input: VaultSaveInput): VaultSaveResult;
    get(id: string): VaultEntry | null;
    /** Live entries, most recently updated first. */
    list(options?: { scopes?: string[] }): VaultEntry[];
    /** Soft delete; false when there was no live entry with that id. */
    delete(id: string): boolean;
    search(query: string, options?: VaultSearchOptions): Promise<VaultHit[]>;
  };
  readonly embeddingModel: string;
  /** Embeds, in batches, every chunk not yet embedded with the current model; returns how many. */
  embedPending(): Promise<number>;
  /** Chunks not yet embedded with the current model. */
  pendingCount(): number;
  searchMessages(query: string, options?: MessageSearchOptions): Promise<MessageHit[]>;
  /** Switches models: chunks embedded with another model count as pending and are embedded again. */
  setEmbeddingModel(model: string): void;
  close(): void;
}

export const MESSAGE_SEARCH_DEFAULTS = { limit: 8, minSimilarity: 0.3 } as const;
export const VAULT_SEARCH_DEFAULTS = { limit: 5, minSimilarity: 0.1 } as const;
export const DEFAULT_SCOPE = 'private';

/** Roles whose messages are chunked and embedded. */
const EMBEDDED_ROLES: ReadonlySet<Role> = new Set(['user', 'assistant']);

interface MessageRow {
  id: number;
  conversation_id: string;
  role: Role;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  cancelled: number;
  created_at: string;
}

interface VaultRow {
  rowid: number;
  id: string;
  scope: string;
  content: string;
  created_at: string;
  updated_at: string;
}

interface PendingRow {
  id: number;
  text: string;
  vault_rowid: number | null;
}

const toConversation = (row: { id: string; title: string | null; model: string | null; created_at: string; updated_at: string }): Conversation => ({
  id: row.id,
  title: row.title,
  model: row.model,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  conversationId: row.conversation_id,
  role: row.role,
  content: row.content,
  toolCalls: row.tool_calls === null ? null : (JSON.parse(row.tool_calls) as ToolCallRecord[]),
  toolCallId: row.tool_call_id,
  cancelled: row.cancelled === 1,
  createdAt: row.created_at,
});

const toVaultEntry = (row: VaultRow): VaultEntry => ({
  id: row.id,
  scope: row.scope,
  content: row.content,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** Checks what an embedding call gave back and turns it into unit vectors. */
function unitVectors(vectors: unknown, count: number, model: string): Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new Error(`embedding model ${model} gave ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${count} texts`);
  }
  const dims = Array.isArray(vectors[0]) ? vectors[0].length : 0;
  return Array.from(vectors, (vector: unknown) => {
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`embedding model ${model} gave something other than a vector of numbers`);
    }
    if (vector.length !== dims) throw new Error(`embedding model ${model} gave vectors of different lengths in one answer`);
    return normalize(Float32Array.from(vector as number[]));
  });
}

const PENDING = 'c.model IS NULL OR c.model < @model OR c.model > @model';

/** Opens (or creates) a memory file. See index.ts for the whole picture. */
export function openMemory(options: MemoryOptions): Memory {
  const db: MemoryDb = openMemoryDatabase(options.file);
  const now = () => (options.now?.() ?? new Date()).toISOString();
  const batchSize = options.batchSize ?? 64;
  let model = options.embeddingModel;
  let loaded: ModelVectors | null = null;
  /** Vault vectors must be read again: this process changed the vault, or `dataVersion` is old. */
  let vaultStale = true;
  /** `PRAGMA data_version` when the vault vectors were read: it moves when another connection writes. */
  let dataVersion = -1;
  let running: Promise<number> | null = null;
  let scheduled = false;
  let closed = false;

  const sql = {
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

  function requireConversation(id: string): void {
    if (!sql.getConversation.get(id)) throw new Error(`no conversation ${id} in memory`);
  }

  /**
   * The vectors of the current model, up to date with the file: all of them the first time,
   * then the message vectors of later embedding batches (this process's or another's; messages
   * never change once written), and the vault vectors again whenever the vault may have changed.
   */
  function vectors(): ModelVectors {
    if (loaded?.model !== model) {
      loaded = new ModelVectors(model);
      vaultStale = true;
    }
    const current = loaded;
    const after = current.seq;
    for (const [seq, messageId, conversationId, role, blob] of sql.messageVectors.iterate(after, model) as Iterable<
      [number, number, string, string, Buffer]
    >) {
      current.addMessageChunk(messageId, conversationId, role, blob);
      current.seq = Math.max(current.seq, seq);
    }
    const version = db.pragma('data_version', { simple: true }) as number;
    if (vaultStale || version !== dataVersion) {
      current.clearVault();
      for (const [rowid, scope, blob] of sql.vaultVectors.iterate(model) as Iterable<[number, string, Buffer]>) {
        current.addVaultChunk(rowid, scope, blob);
      }
      vaultStale = false;
      dataVersion = version;
    }
    return current;
  }

  function scheduleEmbedding(): void {
    if (options.embedInBackground === false || scheduled || closed) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (closed) return;
      embedPending().catch((error: unknown) => options.onBackgroundError?.(error));
    }).unref();
  }

  /**
   * Writes a batch of vectors under a new batch number (taken inside a write-locked transaction,
   * so numbers follow commit order); the next search picks them up. A chunk deleted while it was
   * being embedded is skipped.
   */
  const storeBatch = db.transaction((batchModel: string, rows: PendingRow[], vectorsOf: Float32Array[]) => {
    const dims = (vectorsOf[0] as Float32Array).length;
    const storedBytes = sql.storedLength.get(batchModel) as number | undefined;
    if (storedBytes !== undefined && storedBytes !== dims * 4) {
      throw new Error(`embedding model ${batchModel} gave ${dims} dimensions where memory holds ${storedBytes / 4}`);
    }
    const seq = sql.nextSeq.get() as number;
    rows.forEach((row, i) => {
      sql.storeEmbedding.run({ model: batchModel, embedding: vectorToBlob(vectorsOf[i] as Float32Array), seq, id: row.id });
    });
    if (rows.some((row) => row.vault_rowid !== null)) vaultStale = true;
  });

  async function embedAll(): Promise<number> {
    let done = 0;
    while (!closed) {
      const batchModel = model;
      const rows = sql.pending.all({ model: batchModel, limit: batchSize }) as PendingRow[];
      if (rows.length === 0) break;
      const vectorsOf = unitVectors(await options.embed(rows.map((row) => row.text), batchModel), rows.length, batchModel);
      if (closed) break;
      storeBatch.immediate(batchModel, rows, vectorsOf);
      done += rows.length;
    }
    return done;
  }

  async function embedPending(): Promise<number> {
    while (running) await running.catch(() => 0);
    running = embedAll();
    try {
      return await running;
    } finally {
      running = null;
    }
  }

  /** Embeds what is pending, then the query; gives the query vector and the vectors to search. */
  async function prepareSearch(query: string): Promise<{ queryVector: Float32Array; current: ModelVectors }> {
    if (query.trim().length === 0) throw new Error('the search query is empty');
    for (;;) {
      const queryModel = model;
      await embedPending();
      const [queryVector] = unitVectors(await options.embed([query], queryModel), 1, queryModel);
      if (queryModel === model) return { queryVector: queryVector as Float32Array, current: vectors() };
      // the model changed meanwhile: embed again, never comparing across models
    }
  }

  function chunkVault(rowid: number, content: string): void {
    for (const chunk of chunkText(content, { minLength: 1 })) sql.insertVaultChunk.run(rowid, chunk.text);
  }

  const saveVault = db.transaction((input: VaultSaveInput): VaultSaveResult => {
    const content = input.content.trim();
    if (content.length === 0) throw new Error('a vault entry needs content');
    if (input.scope !== undefined && input.scope.trim().length === 0) throw new Error('a vault scope cannot be empty');
    const time = now();
    if (input.id === undefined) {
      const id = newId('vlt');
      const { lastInsertRowid } = sql.insertVault.run(id, input.scope ?? DEFAULT_SCOPE, content, time, time);
      chunkVault(Number(lastInsertRowid), content);
      return { action: 'new', entry: toVaultEntry(sql.getVault.get(id) as VaultRow) };
    }
    const existing = sql.getVault.get(input.id) as VaultRow | undefined;
    if (!existing) throw new Error(`no vault entry ${input.id}`);
    sql.updateVault.run(content, input.scope ?? existing.scope, time, existing.rowid);
    sql.deleteVaultChunks.run(existing.rowid);
    chunkVault(existing.rowid, content);
    return { action: 'update', entry: toVaultEntry(sql.getVault.get(input.id) as VaultRow) };
  });

  const appendMessage = db.transaction((conversationId: string, message: MessageInput): StoredMessage => {
    requireConversation(conversationId);
    const time = now();
    const { lastInsertRowid } = sql.insertMessage.run(
      conversationId,
      message.role,
      message.content,
      message.toolCalls && message.toolCalls.length > 0 ? JSON.stringify(message.toolCalls) : null,
      message.toolCallId ?? null,
      message.cancelled ? 1 : 0,
      time,
    );
    sql.touchConversation.run(time, conversationId);
    if (EMBEDDED_ROLES.has(message.role)) {
      for (const chunk of chunkText(message.content)) sql.insertMessageChunk.run(lastInsertRowid, chunk.text);
    }
    return toMessage(sql.getMessage.get(lastInsertRowid) as MessageRow);
  });

  function listConversations(limit = 20): Conversation[] {
    return (sql.listConversations.all(limit) as Parameters<typeof toConversation>[0][]).map(toConversation);
  }

  return {
    conversations: {
      create(input = {}) {
        const id = newId('conv');
        const time = now();
        sql.insertConversation.run(id, input.title ?? null, input.model ?? null, time, time);
        return { id, title: input.title ?? null, model: input.model ?? null, createdAt: time, updatedAt: time };
      },
      get(id) {
        const row = sql.getConversation.get(id) as Parameters<typeof toConversation>[0] | undefined;
        return row ? toConversation(row) : null;
      },
      list: listConversations,
      latest: () => listConversations(1)[0] ?? null,
      setTitle(id, title) {
        requireConversation(id);
        sql.setTitle.run(title, id);
      },
      setModel(id, model) {
        requireConversation(id);
        sql.setModel.run(model, id);
      },
    },

    messages: {
      append(conversationId, message) {
        const stored = appendMessage.immediate(conversationId, message);
        scheduleEmbedding();
        return stored;
      },
      list(conversationId) {
        return (sql.listMessages.all(conversationId) as MessageRow[]).map(toMessage);
      },
    },

    vault: {
      save(input) {
        const result = saveVault.immediate(input);
        vaultStale = true;
        scheduleEmbedding();
        return result;
      },
      get(id) {
        const row = sql.getVault.get(id) as VaultRow | undefined;
        return row ? toVaultEntry(row) : null;
      },
      list(listOptions = {}) {
        const scopes = listOptions.scopes ? new Set(listOptions.scopes) : null;
        return (sql.listVault.all() as VaultRow[]).filter((row) => !scopes || scopes.has(row.scope)).map(toVaultEntry);
      },
      delete(id) {
        const existing = sql.getVault.get(id) as VaultRow | undefined;
        if (!existing) return false;
        db.transaction(() => {
          sql.deleteVault.run(now(), existing.rowid);
          sql.deleteVaultChunks.run(existing.rowid);
        }).immediate();
        vaultStale = true;
        return true;
      },
      async search(query, searchOptions = {}) {
        const limit = searchOptions.limit ?? VAULT_SEARCH_DEFAULTS.limit;
        const minSimilarity = searchOptions.minSimilarity ?? VAULT_SEARCH_DEFAULTS.minSimilarity;
        const { queryVector, current } = await prepareSearch(query);
        const index = current.vault;
        if (!index) return [];
        const scopes = searchOptions.scopes ? new Set(searchOptions.scopes.map((scope) => current.scopes.find(scope))) : null;
        return index
          .top(queryVector, limit, minSimilarity, (tag) => !scopes || scopes.has(tag))
          .flatMap(({ owner, score }) => {
            const row = sql.getVaultByRowid.get(owner) as VaultRow | undefined;
            return row ? [{ ...toVaultEntry(row), similarity: score }] : [];
          });
      },
    },

    get embeddingModel() {
      return model;
    },

    embedPending,

    pendingCount() {
      return sql.pendingCount.get({ model }) as number;
    },

    async searchMessages(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? MESSAGE_SEARCH_DEFAULTS.limit;
      const minSimilarity = searchOptions.minSimilarity ?? MESSAGE_SEARCH_DEFAULTS.minSimilarity;
      const includeAssistant = searchOptions.includeAssistant ?? false;
      const { queryVector, current } = await prepareSearch(query);
      const index = current.messages;
      if (!index) return [];
      const excluded = searchOptions.excludeConversationId ? current.conversations.find(searchOptions.excludeConversationId) : -1;
      const hits = index
        .top(queryVector, limit, minSimilarity, (tag) => (includeAssistant || (tag & 1) === 0) && tag >> 1 !== excluded)
        .map(({ owner, score }): MessageHit => {
          const row = sql.getMessage.get(owner) as MessageRow;
          return {
            messageId: row.id,
            conversationId: row.conversation_id,
            role: row.role,
            content: row.content,
            createdAt: row.created_at,
            similarity: score,
          };
        });
      if (searchOptions.sortBy === 'chronological') {
        hits.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.messageId - b.messageId));
      }
      return hits;
    },

    setEmbeddingModel(next) {
      if (next === model) return;
      model = next;
      loaded = null;
      scheduleEmbedding();
    },

    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
