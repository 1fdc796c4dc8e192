import type { Client } from '../client/client.js';
import { apiEmbedder, memoryTools, openMemory, type Memory, type StoredMessage } from '../memory/index.js';
import type { ChatMemory, RememberedMessage } from './memory-port.js';
import type { WireMessage } from './types.js';

/** A stored message as the API takes it again. */
function toWire(message: StoredMessage): WireMessage {
  if (message.role === 'tool') return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
  if (message.role === 'assistant') {
    return { role: 'assistant', content: message.content || null, ...(message.toolCalls ? { tool_calls: message.toolCalls } : {}) };
  }
  return { role: message.role, content: message.content };
}

/** A text as one line of at most `max` characters; only its start is read (a message may be 100 KB). */
const oneLine = (text: string, max: number) => {
  const line = text.slice(0, 4 * max).replace(/\s+/g, ' ').trim();
  return line.length > max || text.length > 4 * max ? `${line.slice(0, max - 1)}…` : line;
};

const remembered = (message: StoredMessage): RememberedMessage => ({ message: toWire(message), cancelled: message.cancelled });

/** The client-side memory (src/memory) as the chat uses it. */
export function chatMemory(memory: Memory): ChatMemory {
  const untitled = new Set<string>();
  return {
    startConversation(model) {
      const conversation = memory.conversations.create({ model });
      untitled.add(conversation.id);
      return conversation.id;
    },
    append(conversationId, message, options = {}) {
      memory.messages.append(conversationId, {
        role: message.role,
        content: message.content ?? '',
        ...(options.cancelled ? { cancelled: true } : {}),
        ...(message.role === 'assistant' && message.tool_calls ? { toolCalls: message.tool_calls } : {}),
        ...(message.role === 'tool' ? { toolCallId: message.tool_call_id } : {}),
      });
      // A conversation is named after its first question.
      if (message.role === 'user' && untitled.delete(conversationId)) memory.conversations.setTitle(conversationId, oneLine(message.content, 60));
    },
    setModel: (conversationId, model) => memory.conversations.setModel(conversationId, model),
    modelOf: (conversationId) => memory.conversations.get(conversationId)?.model ?? null,
    conversations(limit) {
      return memory.conversations.list(limit).map((c) => ({ id: c.id, title: c.title ?? '(untitled)', updatedAt: c.updatedAt }));
    },
    load(conversationId) {
      return memory.conversations.get(conversationId) ? memory.messages.list(conversationId).map(remembered) : null;
    },
    latest: () => memory.conversations.latest()?.id ?? null,
    async search(query, currentConversationId) {
      const hits = await memory.searchMessages(query, currentConversationId ? { excludeConversationId: currentConversationId } : {});
      // What the user asked to keep is found as well as what was said.
      const entries = await memory.vault.search(query);
      return {
        messages: hits.map((hit) => `${hit.similarity.toFixed(2)}  ${hit.createdAt.slice(0, 10)}  ${oneLine(hit.content, 100)}`),
        vault: entries.map((entry) => `${entry.similarity.toFixed(2)}  ${entry.id} [${entry.scope}]  ${oneLine(entry.content, 100)}`),
      };
    },
    vault: {
      list: () => memory.vault.list(),
      delete: (id) => memory.vault.delete(id),
    },
    tools(currentConversationId, confirmSave) {
      return memoryTools(memory, {
        currentConversationId,
        confirmSave: (request) =>
          confirmSave(
            request.action === 'update'
              ? `Update vault entry [${request.scope}]:\n  was: ${oneLine(request.previousContent ?? '', 200)}\n  now: ${oneLine(request.content, 200)}`
              : `Save to the vault [${request.scope}]: ${oneLine(request.content, 300)}`,
          ),
      });
    },
    close: () => memory.close(),
  };
}

/** Opens `~/.svc/memory.db` with embeddings from the API. */
export function openChatMemory(file: string, client: Client, embeddingModel: string): ChatMemory {
  return chatMemory(openMemory({ file, embed: apiEmbedder(client), embeddingModel }));
}
