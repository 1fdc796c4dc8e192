import { defineOperation, ROLES } from '../operation.js';
import { CountTokensBody, MessageObject, MessagesBody, MessagesQuery, TokenCount } from '../schemas/messages.js';

const CALLER = ['api_key', 'identity_token'] as const;

/**
 * The Anthropic Messages API in front of every model: relayed to Anthropic upstreams, translated
 * to chat completions for the others, and metered on the same path as every inference request.
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
    protocol: 'anthropic',
    summary: 'Create a message, Anthropic Messages API (streams with stream: true)',
    description:
      'Anthropic’s request and answer shapes, streaming events and errors, in front of every model; a model name ' +
      'without a provider is read as anthropic/<name>. To an Anthropic upstream the request is relayed as sent ' +
      '(thinking, prompt caching, betas: anthropic-version and anthropic-beta are forwarded); to any other it is ' +
      'translated to a chat completion. Held, metered and recorded like every inference request.',
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
    protocol: 'anthropic',
    summary: 'Count the input tokens of a message (the upstream’s own count for Anthropic models)',
  }),
];
