import type { z } from 'zod';
import { parseEventStream, type ServerSentEvent } from '../../../src/contract/sse.js';
import { parseUpstream, upstreamBadResponse, upstreamStreamError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json-object.js';
import { estimateChatInputTokens, estimateTokens, UNBOUNDED } from '../tokens.js';
import { checkRelayedAnswers } from '../answer-checks.js';
import type { ChatCall, NativeResponses, ProviderAdapter, ResponsesCall, ResponseStreamEvent } from '../types.js';
import type { Upstream } from '../upstream.js';
import {
  UpstreamChatChunk,
  UpstreamChatCompletion,
  UpstreamEmbeddingList,
  UpstreamResponseEvent,
  UpstreamResponseObject,
  UpstreamStreamError,
  writtenText,
} from './schemas.js';
import { createChatRelay } from './relay.js';
import { tokenUsageOfChat } from './usage.js';
import type { CancelSignal } from '../../cancellation.js';

export interface OpenAIAdapterOptions {
  /** The upstream's HTTP layer: base URL (with `/v1`), `Authorization` header, timeouts, retries. */
  upstream: Upstream;
  /** The upstream has the Responses API itself (OpenAI does; most compatible servers do not). */
  supportsResponses?: boolean;
}

/** Usage by estimate, for an upstream that does not count (some local servers do not). */
function estimateUsage(call: ChatCall, message: z.output<typeof UpstreamChatCompletion>['choices'][number]['message'] | undefined) {
  const input = estimateChatInputTokens(call.body, UNBOUNDED);
  const output = estimateTokens(message ? writtenText(message) : '');
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

/** What UpstreamResponseObject accepts, without copying it: an id, `object: response`, a status, output items with a type. */
const isResponseObject = (value: unknown): value is JsonObject =>
  isJsonObject(value) &&
  typeof value.id === 'string' &&
  value.object === 'response' &&
  typeof value.status === 'string' &&
  Array.isArray(value.output) &&
  value.output.every((item) => isJsonObject(item) && typeof item.type === 'string');

/** The events that end a streamed response. */
const RESPONSE_END = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * Any OpenAI-compatible upstream (OpenAI, OpenRouter, Groq, Together, Ollama, vLLM, LM Studio):
 * requests go out in OpenAI's shapes with the upstream's model id. Answers to translate are
 * validated and evened out (`chat`, `chatStream`); a chat completion relayed to a chat-completions
 * client is read only where metering needs it (`relayChat`, `relayChatStream`, relay.ts).
 */
export function createOpenAIAdapter(options: OpenAIAdapterOptions): ProviderAdapter {
  const { upstream } = options;
  const provider = upstream.provider;
  const parse = <T extends z.ZodType>(schema: T, value: unknown, what: string) => parseUpstream(provider, schema, value, what);

  /** An error the upstream sent in the middle of a stream: a 502 that passes its message on. */
  const midStreamError = (message: unknown) =>
    upstreamStreamError(provider, upstream.redact(typeof message === 'string' ? message : 'no message'));

  /** The chat request as the upstream gets it: its model id, without our own fields. */
  function chatRequest(call: ChatCall, stream: boolean) {
    const { image_model: _imageModel, stream_options: _streamOptions, ...body } = call.body;
    // Usage is always asked for; the gateway decides whether the client sees it. Fields added
    // with Object.assign, not a spread: V8 gives a spread copy a new hidden class per added field.
    return Object.assign(body, { model: call.model, stream }, stream ? { stream_options: { include_usage: true } } : {});
  }

  /** The Responses request as the upstream gets it (the gateway has already removed our own fields). */
  function responsesRequest(call: ResponsesCall, stream: boolean) {
    return { ...call.body, model: call.model, stream };
  }

  /** The server-sent events of a streamed POST, each with its data parsed as JSON. */
  async function* stream(path: string, body: unknown, signal: CancelSignal): AsyncGenerator<ServerSentEvent & { json: unknown }> {
    const response = await upstream.send(path, { body, signal, headers: { accept: 'text/event-stream' } });
    for await (const event of parseEventStream(upstream.read(response, signal))) {
      // Events already read stay unsent once the caller has gone.
      signal.throwIfAborted();
      if (event.data.trim() === '') continue;
      let json: unknown = null;
      if (event.data !== '[DONE]') {
        try {
          json = JSON.parse(event.data);
        } catch {
          throw upstreamBadResponse(provider, 'a stream event that is not JSON');
        }
      }
      yield { event: event.event, data: event.data, json };
    }
  }

  const responses: NativeResponses = {
    async create(call) {
      const raw = await upstream.json('/responses', { body: responsesRequest(call, false), signal: call.signal });
      // Passed on as it came where it has what the schema asks (a parse would copy every output
      // item); otherwise the schema says what is wrong.
      return isResponseObject(raw) && !checkRelayedAnswers ? raw : parse(UpstreamResponseObject, raw, 'a response');
    },

    async *stream(call) {
      for await (const event of stream('/responses', responsesRequest(call, true), call.signal)) {
        // Every event is read for its type (a delta for its text, a response for its usage) and
        // relayed as written: its shape is checked in full only where answers are (under test).
        const json = event.json;
        if (checkRelayedAnswers) parse(UpstreamResponseEvent, json, 'a response event');
        if (typeof json !== 'object' || json === null || typeof (json as { type?: unknown }).type !== 'string') {
          throw upstreamBadResponse(provider, 'a response event without a type');
        }
        const data = json as ResponseStreamEvent['data'];
        if (data.type === 'error') throw midStreamError(data.message);
        yield { event: event.event ?? data.type, data, raw: event.data };
        if (RESPONSE_END.has(data.type)) return;
      }
      throw upstreamBadResponse(provider, 'the stream ended before the response did');
    },
  };

  return {
    ...createChatRelay(upstream, chatRequest),

    async chat(call) {
      const raw = await upstream.json('/chat/completions', { body: chatRequest(call, false), signal: call.signal });
      const completion = parse(UpstreamChatCompletion, raw, 'a chat completion');
      const usage = completion.usage ?? estimateUsage(call, completion.choices[0]?.message);
      return { completion: { ...completion, usage }, usage: tokenUsageOfChat(usage, typeof completion.service_tier === 'string' ? completion.service_tier : null) };
    },

    async *chatStream(call) {
      for await (const event of stream('/chat/completions', chatRequest(call, true), call.signal)) {
        if (event.data === '[DONE]') return;
        // Only an event with an `error` can be one: a failed parse of every chunk costs a ZodError each.
        if (typeof event.json === 'object' && event.json !== null && 'error' in event.json) {
          const failure = UpstreamStreamError.safeParse(event.json);
          if (failure.success) throw midStreamError(failure.data);
        }
        const chunk = parse(UpstreamChatChunk, event.json, 'a chat completion chunk');
        if (chunk.choices.length > 0 || chunk.usage) yield chunk;
      }
      throw upstreamBadResponse(provider, 'the stream ended without [DONE]');
    },

    async embeddings(call) {
      // Floats, always: the gateway encodes for its client.
      const body = { model: call.model, input: call.inputs, encoding_format: 'float', dimensions: call.dimensions };
      const raw = await upstream.json('/embeddings', { body, signal: call.signal });
      const list = parse(UpstreamEmbeddingList, raw, 'an embedding list');
      const vectors = call.inputs.map((_, i) => list.data.find((d) => d.index === i)?.embedding);
      if (list.data.length !== call.inputs.length || vectors.some((v) => v === undefined)) {
        throw upstreamBadResponse(provider, `${list.data.length} embeddings for ${call.inputs.length} inputs`);
      }
      const estimate = () => call.inputs.reduce<number>((sum, i) => sum + (typeof i === 'string' ? estimateTokens(i) : i.length), 0);
      return { vectors: vectors as number[][], inputTokens: list.usage?.prompt_tokens ?? estimate() };
    },

    ...(options.supportsResponses ? { responses } : {}),

    close: () => upstream.close(),
  };
}
