import { randomBytes } from 'node:crypto';
import type { Conversation, Role, StoredMessage, ToolCallRecord, VaultEntry } from './memory-types.js';

// The memory file's rows as SQLite gives them, and the records they become.

export interface MessageRow {
  id: number;
  conversation_id: string;
  role: Role;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  cancelled: number;
  created_at: string;
}

export interface VaultRow {
  rowid: number;
  id: string;
  scope: string;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface PendingRow {
  id: number;
  text: string;
  vault_rowid: number | null;
}

export const toConversation = (row: { id: string; title: string | null; model: string | null; created_at: string; updated_at: string }): Conversation => ({
  id: row.id,
  title: row.title,
  model: row.model,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  conversationId: row.conversation_id,
  role: row.role,
  content: row.content,
  toolCalls: row.tool_calls === null ? null : (JSON.parse(row.tool_calls) as ToolCallRecord[]),
  toolCallId: row.tool_call_id,
  cancelled: row.cancelled === 1,
  createdAt: row.created_at,
});

export const toVaultEntry = (row: VaultRow): VaultEntry => ({
  id: row.id,
  scope: row.scope,
  content: row.content,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
