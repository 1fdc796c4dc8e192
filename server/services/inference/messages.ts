import type { MessageObject } from '../../../src/contract/schemas/messages.js';
import { ApiError } from '../../errors.js';
import { SseReply, type SseEvent } from '../../http/sse.js';
import type { ProviderRegistry, ResolvedModel } from '../../providers/registry.js';
import { boundsOf, estimateChatInputTokens } from '../../providers/tokens.js';
import type { ChatChunk } from '../../providers/types.js';
import type { Caller } from './caller.js';
import type { createChatService } from './chat.js';
import {
  createMessageStreamTranslator,
  errorEvent,
  resolveModelId,
  toChatBody,
  toMessage,
  type ChatStreamError,
  type MessagesRequest,
} from './messages-translate.js';

type ChatService = Pick<ReturnType<typeof createChatService>, 'complete'>;

/** One event of the chat service's stream, read back from its JSON. */
export type ChatStreamItem = { kind: 'chunk'; chunk: ChatChunk } | { kind: 'done' } | { kind: 'error'; error: ChatStreamError };

/**
 * The chat service's stream as what it carries: chunks, the end (`[DONE]`), or an error. The
 * events are the chat service's own JSON, so reading them back cannot fail on a client's input.
 * Returning early (the client went away) closes the chat stream, which settles what was produced.
 */
export async function* chatStreamItems(reply: SseReply): AsyncGenerator<ChatStreamItem> {
  for await (const { data } of reply.events) {
    if (data === '[DONE]') {
      yield { kind: 'done' };
      continue;
    }
    const json = JSON.parse(data) as ChatChunk | { error: ChatStreamError };
    yield 'error' in json ? { kind: 'error', error: json.error } : { kind: 'chunk', chunk: json };
  }
}

/** Chat stream items as Anthropic stream events; an error, from upstream or translation, ends it with `event: error`. */
export async function* messageEvents(items: AsyncIterable<ChatStreamItem>, model: string): AsyncGenerator<SseEvent> {
  const translator = createMessageStreamTranslator(model);
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

/**
 * The Anthropic Messages API front door. It owns no metering: every request is translated to a
 * chat completion and goes through the chat service, the one metered path.
 */
export function createMessagesService(deps: { registry: ProviderRegistry; chat: ChatService }) {
  /** The model behind a request; a bare name that finds nothing says how it was read. */
  function resolve(model: string): ResolvedModel & { modelId: string } {
    const modelId = resolveModelId(model);
    try {
      return { ...deps.registry.resolve(modelId, 'chat'), modelId };
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
    async create(caller: Caller, request: MessagesRequest, requestId: string, signal: AbortSignal): Promise<MessageObject | SseReply> {
      const { modelId } = resolve(request.model);
      const result = await deps.chat.complete(caller, toChatBody(request, modelId), requestId, signal, 'messages.create');
      if (result instanceof SseReply) return new SseReply(messageEvents(chatStreamItems(result), modelId));
      return toMessage(result);
    },

    /** The input tokens as the gateway estimates them: exactly what chat holds credits for. */
    countTokens(request: MessagesRequest): { input_tokens: number } {
      const { entry, modelId } = resolve(request.model);
      return { input_tokens: estimateChatInputTokens(toChatBody(request, modelId), boundsOf(entry)) };
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
