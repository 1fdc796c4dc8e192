// What the memory keeps and how it is asked: the public types of openMemory (memory.ts).

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
