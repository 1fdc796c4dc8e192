import { ApiError } from '../../errors.js';
import { SseReply, type SseEvent } from '../../http/sse.js';
import { estimateChatInputTokens, estimateTokens } from '../../providers/tokens.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatBody, ChatChunk, TokenUsage } from '../../providers/types.js';
import type { Caller } from './caller.js';
import { rewriteChunks, rewriteCompletion } from './image-model.js';
import { errorCode, openMeter, type Meter, type MeterOptions } from './meter.js';

function errorEvent(error: unknown): SseEvent {
  const api =
    error instanceof ApiError
      ? error
      : new ApiError(502, 'upstream_error', `The upstream failed mid-stream: ${(error as Error).message}`, 'upstream_error');
  return { data: JSON.stringify({ error: { message: api.message, type: api.type, code: api.code, param: api.param } }) };
}

export function createChatService(deps: MeterOptions & { registry: ProviderRegistry }) {
  async function* streamChunks(
    chunks: AsyncIterable<ChatChunk>,
    meter: Meter,
    modelId: string,
    inputTokens: number,
    includeUsage: boolean,
    signal: AbortSignal,
  ): AsyncGenerator<SseEvent> {
    let usage: TokenUsage | null = null;
    let produced = '';
    let status: 'ok' | 'error' | 'canceled' = 'ok';
    let failure: string | null = null;
    try {
      for await (const chunk of chunks) {
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        const delta = chunk.choices[0]?.delta;
        const piece = (delta?.content ?? '') + (delta?.tool_calls?.map((c) => c.function?.arguments ?? '').join('') ?? '');
        if (piece) {
          meter.firstToken();
          produced += piece;
        }
        const { usage: _usage, ...rest } = chunk;
        if (chunk.choices.length > 0) yield { data: JSON.stringify({ ...rest, model: modelId }) };
        if (chunk.usage && includeUsage) yield { data: JSON.stringify({ ...rest, model: modelId, choices: [], usage: chunk.usage }) };
      }
      yield { data: '[DONE]' };
    } catch (error) {
      status = signal.aborted ? 'canceled' : 'error';
      failure = errorCode(error);
      if (!signal.aborted) yield errorEvent(error);
    } finally {
      if (signal.aborted && status === 'ok') status = 'canceled';
      // Only what was produced is charged when the stream ends early.
      await meter.settle(usage ?? { inputTokens, outputTokens: estimateTokens(produced) }, status, failure);
    }
  }

  return {
    async complete(caller: Caller, body: ChatBody, requestId: string, signal: AbortSignal) {
      const { entry, adapter } = deps.registry.resolve(body.model, 'chat');
      const inputTokens = estimateChatInputTokens(body);
      const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? entry.defaultMaxOutputTokens;
      const meter = await openMeter(deps, { caller, entry, operation: 'chat.completions', requestId, inputTokens, maxOutputTokens });
      const call = { model: entry.model, body, maxOutputTokens, signal };
      if (body.stream) {
        const includeUsage = body.stream_options?.include_usage === true;
        const chunks = rewriteChunks(adapter.chatStream(call), body.image_model);
        return new SseReply(streamChunks(chunks, meter, entry.id, inputTokens, includeUsage, signal));
      }
      try {
        const { completion, usage } = await adapter.chat(call);
        await meter.settle(usage, 'ok');
        return { ...rewriteCompletion(completion, body.image_model), model: entry.id };
      } catch (error) {
        await meter.failed(error, signal);
        throw error;
      }
    },
  };
}

