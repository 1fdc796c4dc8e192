import { VectorIndex } from './vector-index.js';

/** Small integers for strings (conversation ids, scopes), so rows can carry them as tags. */
export class Interner {
  private readonly slots = new Map<string, number>();

  slot(value: string): number {
    let slot = this.slots.get(value);
    if (slot === undefined) {
      slot = this.slots.size;
      this.slots.set(value, slot);
    }
    return slot;
  }

  /** The slot of a value, or -1 when it has none (no row carries it). */
  find(value: string): number {
    return this.slots.get(value) ?? -1;
  }
}

/**
 * The loaded vectors of one embedding model: message chunks (tag: conversation slot × 2, +1 for
 * an assistant message) and vault chunks (tag: scope slot). All vectors of a model have one length.
 */
export class ModelVectors {
  /** The last embedding batch (`chunks.embedded_seq`) whose message vectors are in `messages`. */
  seq = 0;
  readonly conversations = new Interner();
  scopes = new Interner();
  messages: VectorIndex | null = null;
  vault: VectorIndex | null = null;
  private dims: number | null = null;

  constructor(readonly model: string) {}

  addMessageChunk(messageId: number, conversationId: string, role: string, vector: Uint8Array): void {
    this.messages ??= new VectorIndex(this.checkDims(vector));
    this.messages.add(messageId, this.conversations.slot(conversationId) * 2 + (role === 'assistant' ? 1 : 0), vector);
  }

  addVaultChunk(vaultRowid: number, scope: string, vector: Uint8Array): void {
    this.vault ??= new VectorIndex(this.checkDims(vector), 64);
    this.vault.add(vaultRowid, this.scopes.slot(scope), vector);
  }

  /** Forgets the vault vectors, before they are read again. */
  clearVault(): void {
    this.vault = null;
    this.scopes = new Interner();
  }

  /** Throws unless a stored vector has this model's length (set by its first vector). */
  private checkDims(vector: Uint8Array): number {
    const length = vector.byteLength / 4;
    this.dims ??= length;
    if (length !== this.dims) throw new Error(`embedding model ${this.model} gave ${length} dimensions where memory holds ${this.dims}`);
    return this.dims;
  }
}
