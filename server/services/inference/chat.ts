import { SseReply, type SseEvent } from '../../http/sse.js';
import { boundsOf, estimateChatInputTokens } from '../../providers/tokens.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatBody, ChatChunk } from '../../providers/types.js';
import type { Caller } from './caller.js';
import { rewriteChunks, rewriteCompletion } from './image-model.js';
import { asApiError, meteredChunks } from './metered-stream.js';
import { microToCredits } from '../../store/money.js';
import { openMeter, type MeterOptions } from './meter.js';

/** Chunks as chat-completion events: our model id, usage only when asked, then [DONE]. */
async function* chatEvents(chunks: AsyncIterable<ChatChunk>, modelId: string, includeUsage: boolean, signal: AbortSignal): AsyncGenerator<SseEvent> {
  try {
    for await (const { usage, ...chunk } of chunks) {
      if (chunk.choices.length > 0) yield { data: JSON.stringify({ ...chunk, model: modelId }) };
      if (usage && includeUsage) yield { data: JSON.stringify({ ...chunk, model: modelId, choices: [], usage }) };
    }
    yield { data: '[DONE]' };
  } catch (error) {
    // An error after the stream has started: one error event, then the stream ends.
    if (!signal.aborted) {
      const { message, type, code, param } = asApiError(error);
      yield { data: JSON.stringify({ error: { message, type, code, param } }) };
    }
  }
}

export function createChatService(deps: MeterOptions & { registry: ProviderRegistry }) {
  return {
    /** `operation` names the front door in the usage row (chat.completions, messages.create). */
    async complete(caller: Caller, body: ChatBody, requestId: string, signal: AbortSignal, operation = 'chat.completions') {
      const { entry, adapter } = deps.registry.resolve(body.model, 'chat');
      const inputTokens = estimateChatInputTokens(body, boundsOf(entry));
      const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? entry.defaultMaxOutputTokens;
      // n choices may each write the whole budget: the hold covers them all.
      const choices = body.n ?? 1;
      const meter = await openMeter(deps, {
        caller,
        entry,
        operation,
        requestId,
        inputTokens,
        maxOutputTokens: maxOutputTokens * choices,
        serviceTier: body.service_tier,
      });
      const call = { model: entry.model, body, maxOutputTokens, signal };
      if (body.stream) {
        const includeUsage = body.stream_options?.include_usage === true;
        const chunks = meteredChunks(rewriteChunks(adapter.chatStream(call), body.image_model), meter, inputTokens, signal);
        return new SseReply(chatEvents(chunks, entry.id, includeUsage, signal));
      }
      try {
        const { completion, usage } = await adapter.chat(call);
        const { chargedMicro } = await meter.settle(usage, 'ok');
        const answer = rewriteCompletion(completion, body.image_model);
        return { ...answer, model: entry.id, ...(answer.usage ? { usage: { ...answer.usage, cost: microToCredits(chargedMicro) } } : {}) };
      } catch (error) {
        await meter.failed(error, signal);
        throw error;
      }
    },
  };
}

