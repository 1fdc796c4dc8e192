import type { ClientTool, WireMessage } from './types.js';

/** A message of a past conversation, with what the screen showed of it. */
export interface RememberedMessage {
  message: WireMessage;
  /** An answer the user cut short: shown "(cancelled)" again when resumed. */
  cancelled: boolean;
}

/** What `/memory <query>` finds, as short lines: past messages, and vault entries. */
export interface MemoryFindings {
  messages: string[];
  vault: string[];
}

/**
 * What the chat needs from the client-side memory (src/memory adapts itself to this): a place to
 * write the conversation as it happens, to find it again, and the memory tools.
 */
export interface ChatMemory {
  startConversation(model: string): string;
  /** The model a conversation talks to from now on. */
  setModel(conversationId: string, model: string): void;
  /** The model a conversation last talked to, or null. */
  modelOf(conversationId: string): string | null;
  append(conversationId: string, message: WireMessage, options?: { cancelled?: boolean }): void;
  conversations(limit: number): { id: string; title: string; updatedAt: string }[];
  /** The conversation's messages, or null when there is no such conversation. */
  load(conversationId: string): RememberedMessage[] | null;
  latest(): string | null;
  /** `/memory <query>`: messages of other conversations, and the vault. */
  search(query: string, currentConversationId: string | null): Promise<MemoryFindings>;
  vault: {
    list(): { id: string; scope: string; content: string }[];
    delete(id: string): boolean;
  };
  /** The memory tools, bound to the current conversation and to a save confirmation. */
  tools(currentConversationId: () => string | null, confirmSave: (summary: string) => Promise<boolean>): ClientTool[];
  close(): void;
}
