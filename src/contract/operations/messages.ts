import { defineOperation, ROLES } from '../operation.js';
import { CountTokensBody, MessageObject, MessagesBody, MessagesQuery, TokenCount } from '../schemas/messages.js';

const CALLER = ['api_key', 'identity_token'] as const;

/**
 * The Anthropic Messages API in front of every model. It is translated to chat completions and
 * served by the same metered path, so it is held, charged and recorded exactly like them.
 */
export const messagesOperations = [
  defineOperation({
    id: 'messages.create',
    cli: ['messages', 'create'],
    method: 'POST',
    path: '/messages',
    query: MessagesQuery,
    body: MessagesBody,
    response: MessageObject,
    stream: 'optional',
    auth: CALLER,
    roles: ROLES.inference,
    metered: true,
    summary: 'Create a message, Anthropic Messages API (streams with stream: true)',
    description:
      'Anthropic’s request and answer shapes, streaming events and tools, in front of every model; a model name ' +
      'without a provider is read as anthropic/<name>. Translated to a chat completion and metered as one. ' +
      'Refused by name: top_k, thinking (other than disabled).',
  }),
  defineOperation({
    id: 'messages.count-tokens',
    cli: ['messages', 'count-tokens'],
    method: 'POST',
    path: '/messages/count_tokens',
    query: MessagesQuery,
    body: CountTokensBody,
    response: TokenCount,
    auth: CALLER,
    roles: ROLES.inference,
    summary: 'Count the input tokens of a message (the estimate credits are held for)',
  }),
];
