import { chunkText } from './chunk.js';
import { openMemoryDatabase, vectorToBlob, type MemoryDb } from './database.js';
import {
  DEFAULT_SCOPE,
  MESSAGE_SEARCH_DEFAULTS,
  VAULT_SEARCH_DEFAULTS,
  type Conversation,
  type Memory,
  type MemoryOptions,
  type MessageHit,
  type MessageInput,
  type Role,
  type StoredMessage,
  type VaultSaveInput,
  type VaultSaveResult,
} from './memory-types.js';
import { ModelVectors } from './model-vectors.js';
import { newId, toConversation, toMessage, toVaultEntry, type MessageRow, type PendingRow, type VaultRow } from './rows.js';
import { prepareStatements } from './statements.js';
import { unitVectors } from './unit-vectors.js';

// The types and the id maker live beside; importers of memory.ts keep finding them here.
export * from './memory-types.js';
export { newId } from './rows.js';

/** Roles whose messages are chunked and embedded. */
const EMBEDDED_ROLES: ReadonlySet<Role> = new Set(['user', 'assistant']);

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

  const sql = prepareStatements(db);

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
