import type { ChatBody } from './types.js';

/**
 * Token counts before an upstream has counted them: for holds, for the local provider, and for
 * streams cut short. About four characters a token, a slight overestimate for English, which is
 * the safe side for a hold.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The text of a message's content: a string, or a list of parts of which text parts count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
}

/** Input tokens of a chat request: every message (plus a few for its framing) and the tools. */
export function estimateChatInputTokens(body: Pick<ChatBody, 'messages' | 'tools'>): number {
  const messages = body.messages.reduce((sum, m) => sum + estimateTokens(contentText(m.content)) + 4, 0);
  return messages + (body.tools ? estimateTokens(JSON.stringify(body.tools)) : 0);
}
