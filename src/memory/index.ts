/**
 * # Client-side memory
 *
 * Conversations, messages and vault entries of the terminal client, kept in one SQLite file
 * (`~/.svc/memory.db`; the caller passes the path, this library reads no environment), with
 * embeddings for search by meaning. No Ink or React here: the chat TUI, the pipe mode and the
 * dashboard all use it.
 *
 * ```ts
 * const memory = openMemory({ file, embed: apiEmbedder(client), embeddingModel: 'local/embed' });
 * const conversation = memory.conversations.create();
 * memory.messages.append(conversation.id, { role: 'user', content: 'my cat is called Miso' });
 * const tools = memoryTools(memory, { currentConversationId: () => conversation.id, confirmSave: askUser });
 * // … later, in another conversation:
 * await memory.searchMessages('what is my cat called?'); // → [{ content: 'my cat is called Miso', similarity, … }]
 * memory.close();
 * ```
 *
 * - **Storage.** better-sqlite3 in WAL mode; numbered migrations (`PRAGMA user_version`). Every
 *   write is its own committed transaction: `append` returns once the message is committed, so a
 *   crash of the process loses nothing already shown. Several processes may share the file (a
 *   chat and a pipe-mode run, say): each finds what the others wrote at its next search.
 * - **Chunks.** User and assistant messages are cut into chunks of 400 characters with a
 *   50-character overlap, preferring whitespace near a cut and never splitting a surrogate pair
 *   (`chunkText`). A message whose trimmed text is under 20 characters (`MIN_EMBED_LENGTH`) is
 *   not embedded; system and tool messages are never embedded. Vault entries are chunked the same
 *   way, whatever their length.
 * - **Embeddings.** Through the injected `embed(texts, model)` (`apiEmbedder(client)` wires it to
 *   `POST /embeddings`). They are computed in the background: `append` and `vault.save` return at
 *   once and schedule `embedPending()`, which embeds every pending chunk in batches (one run at a
 *   time). Vectors are stored as float32 BLOBs, normalised to unit length, with the model that
 *   made them: after `setEmbeddingModel`, chunks of another model count as pending and are
 *   embedded again, never compared across models. Background failures go to `onBackgroundError`
 *   and are retried by the next run.
 * - **Search.** Every search first awaits `embedPending()` (so what was just said is found),
 *   embeds the query, and scores it against the current model's vectors, kept in memory as one
 *   contiguous Float32Array (loaded on first use; each search then adds the vectors embedded
 *   since, by this process or another, found by their batch number `chunks.embedded_seq`).
 *   Cosine similarity is a dot product of unit vectors, computed with WebAssembly SIMD where the
 *   runtime has it (about 20 ms for 100,000 chunks of 384 dimensions: `npm run bench
 *   memory-search`); a small heap keeps the top hits, each message or vault entry once with its
 *   best chunk. `searchMessages` defaults: `limit` 8, `minSimilarity` 0.3, user messages only,
 *   most similar first (`sortBy: 'chronological'` gives the same hits oldest first).
 *   `vault.search` defaults: `limit` 5, `minSimilarity` 0.1, optional `scopes`.
 * - **Vault.** Lasting notes, one entry per topic: id `vlt_…`, `scope` (default `private`),
 *   update by id (content replaced, re-embedded), soft delete (a deleted entry never shows in
 *   `get`, `list` or search).
 * - **Tools.** `memoryTools(memory, { currentConversationId, confirmSave })` gives the model
 *   `search_memory` (leaves the current conversation out unless `excludeConversationId` says
 *   otherwise; `null` searches all), `memory_vault_search` and `memory_vault_save` (`writes:
 *   true`; every save is put to `confirmSave({ action, content, previousContent?, scope })`, and a
 *   refusal changes nothing; without `confirmSave` the host approves writes in its tool-call
 *   handler, as the specification allows). Arguments are checked with zod; a bad argument or a failure comes
 *   back as a JSON `{ error: { code, message } }` result, never as a rejection.
 */
export { BREAK_WINDOW, CHUNK_OVERLAP, CHUNK_SIZE, MIN_EMBED_LENGTH, chunkText, type Chunk, type ChunkOptions } from './chunk.js';
export { apiEmbedder } from './embedder.js';
export {
  DEFAULT_SCOPE,
  MESSAGE_SEARCH_DEFAULTS,
  VAULT_SEARCH_DEFAULTS,
  openMemory,
  type Conversation,
  type EmbedFunction,
  type Memory,
  type MemoryOptions,
  type MessageHit,
  type MessageInput,
  type MessageSearchOptions,
  type Role,
  type StoredMessage,
  type ToolCallRecord,
  type VaultEntry,
  type VaultHit,
  type VaultSaveInput,
  type VaultSaveResult,
  type VaultSearchOptions,
} from './memory.js';
export { MEMORY_TOOL_NAMES, memoryTools, type MemoryToolOptions, type Tool, type VaultSaveRequest } from './tools.js';
