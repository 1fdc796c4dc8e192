import type { IncomingHttpHeaders } from 'node:http';
import type { CountTokensBody, MessageObject, MessagesBody } from '../../../src/contract/schemas/messages.js';
import { ApiError, forbidden } from '../../errors.js';
import { eventsOf, SseReply, type SseEvent } from '../../streams.js';
import type { ProviderRegistry, ResolvedModel } from '../../providers/registry.js';
import { boundsOf, estimateChatInputTokens } from '../../providers/tokens.js';
import type { ChatChunk } from '../../providers/types.js';
import { parseOrThrow } from '../../validation.js';
import type { Caller } from './caller.js';
import type { createChatService } from './chat.js';
import { countRelayed, relayMessage } from './messages-relay.js';
import { TranslatableCountTokensBody, TranslatableMessagesBody } from './messages-translatable.js';
import type { MeterOptions } from './meter.js';
import { routingOf, type Routing, type TargetPlan } from './routing/runner.js';
import {
  createMessageStreamTranslator,
  errorEvent,
  resolveModelId,
  toChatBody,
  toMessage,
  type ChatStreamError,
  type MessageStreamOptions,
  type MessagesRequest,
} from './messages-translate.js';
import type { CancelSignal } from '../../cancellation.js';

type ChatService = Pick<ReturnType<typeof createChatService>, 'complete'>;

/** One event of the chat service's stream, read back from its JSON. */
export type ChatStreamItem = { kind: 'chunk'; chunk: ChatChunk } | { kind: 'done' } | { kind: 'error'; error: ChatStreamError };

/**
 * The chat service's stream as what it carries: chunks, the end (`[DONE]`), or an error. The
 * events are the chat service's own JSON, so reading them back cannot fail on a client's input.
 * Returning early (the client went away) closes the chat stream, which settles what was produced.
 */
export async function* chatStreamItems(reply: SseReply): AsyncGenerator<ChatStreamItem> {
  for await (const step of reply.events) {
    for (const { data } of eventsOf(step)) {
      if (data === '[DONE]') {
        yield { kind: 'done' };
        continue;
      }
      const json = JSON.parse(data) as ChatChunk | { error: ChatStreamError };
      yield 'error' in json ? { kind: 'error', error: json.error } : { kind: 'chunk', chunk: json };
    }
  }
}

/** Chat stream items as Anthropic stream events; an error, from upstream or translation, ends it with `event: error`. */
export async function* messageEvents(items: AsyncIterable<ChatStreamItem>, model: string, options: MessageStreamOptions = {}): AsyncGenerator<SseEvent> {
  const translator = createMessageStreamTranslator(model, options);
  try {
    for await (const item of items) {
      if (item.kind === 'error') {
        yield errorEvent(item.error);
        return;
      }
      yield* item.kind === 'chunk' ? translator.chunk(item.chunk) : translator.done();
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    yield errorEvent(error);
  }
}

/** A Messages request as the handler hands it over: who, the client's headers, and its lifetime. */
export interface MessagesRequestInfo {
  id: string;
  headers: IncomingHttpHeaders;
  signal: CancelSignal;
}

/**
 * The Anthropic Messages API front door. Same protocol → relay: a model whose provider speaks
 * the Messages API (Anthropic) gets the request as the client sent it (messages-relay.ts), on
 * the meter every inference request goes through. Different protocol → translate: the request is
 * read again with what the chat format can carry and served by the chat service.
 */
export function createMessagesService(deps: MeterOptions & { registry: ProviderRegistry; chat: ChatService; routing?: Routing }) {
  const routing = deps.routing ?? routingOf(deps);

  /**
   * The targets behind a request's model (one, or a route's), the first of them to count tokens
   * with; a bare name that finds nothing says how it was read.
   */
  function resolve(model: string, stream = false): ResolvedModel & { modelId: string; plan: TargetPlan } {
    const modelId = resolveModelId(model);
    try {
      const plan = routing.plan(deps.registry.requested([modelId], 'chat'), stream ? 'stream' : 'answer');
      return { ...(plan.targets[0] as ResolvedModel), modelId, plan };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && modelId !== model) {
        throw new ApiError(
          error.status,
          error.type,
          `${error.message} A model name without a provider is read as an Anthropic one: '${model}' is '${modelId}'; ` +
            "name another provider's models as <provider>/<model>.",
          error.code,
          error.param,
        );
      }
      throw error;
    }
  }

  return {
    async create(caller: Caller, body: MessagesBody, info: MessagesRequestInfo): Promise<MessageObject | SseReply> {
      const { entry, modelId, plan } = resolve(body.model, body.stream === true);
      // Same protocol, relayed: when every target speaks the Messages API. A route that mixes
      // protocols is served translated, through the chat service (which routes it too).
      if (plan.targets.every((target) => target.adapter.messages)) {
        const answer = await relayMessage(deps, routing, plan, { caller, body, headers: info.headers, requestId: info.id, signal: info.signal });
        return answer as MessageObject | SseReply;
      }
      const request: MessagesRequest = parseOrThrow(TranslatableMessagesBody, body, 'body');
      const chatBody = toChatBody(request, modelId);
      const result = await deps.chat.complete(caller, chatBody, info.id, info.signal, 'messages.create');
      if (result instanceof SseReply) {
        // message_start says the input tokens before the upstream has counted them: the bound credits are held for.
        const inputTokens = estimateChatInputTokens(chatBody, boundsOf(entry));
        return new SseReply(messageEvents(chatStreamItems(result), modelId, { inputTokens }));
      }
      return toMessage(result);
    },

    /**
     * The input tokens: the upstream's own count where it has a count_tokens of its own, else
     * the bound the chat service holds credits for. A test key never reaches a live upstream.
     */
    async countTokens(caller: Caller, body: CountTokensBody, info: MessagesRequestInfo): Promise<{ input_tokens: number }> {
      const { entry, adapter, modelId } = resolve(body.model);
      if (caller.isTest && entry.provider !== 'local') {
        throw forbidden(`Test keys (svc_test_…) reach only the offline local provider; '${entry.id}' needs a live key.`, 'test_key_not_allowed');
      }
      if (adapter.messages) return { input_tokens: await countRelayed(adapter.messages, { entry, body, headers: info.headers, signal: info.signal }) };
      const request: MessagesRequest = parseOrThrow(TranslatableCountTokensBody, body, 'body');
      return { input_tokens: estimateChatInputTokens(toChatBody(request, modelId), boundsOf(entry)) };
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
