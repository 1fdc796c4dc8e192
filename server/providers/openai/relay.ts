import type { z } from 'zod';
import { eventBatches } from '../../../src/contract/sse.js';
import { checkRelayedAnswers } from '../answer-checks.js';
import { parseUpstream, upstreamBadResponse, upstreamStreamError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json-object.js';
import { estimateChatInputTokens, tokensOfLength, UNBOUNDED, writtenWeight } from '../tokens.js';
import type { ChatCall, ChatUsage, RelayedChatBatch, RelayedChatChunk, RelayedCompletion } from '../types.js';
import type { Upstream } from '../upstream.js';
import { UpstreamChatChunk, UpstreamChatCompletion, UpstreamChatUsage, UpstreamStreamError } from './schemas.js';
import { scanChunk } from './chunk-scan.js';
import { tokenUsageOfChat } from './usage.js';

/**
 * Chat completions relayed from an upstream that speaks them: the answer goes on as the upstream
 * wrote it, and only what metering needs is read (the usage, the service tier, the output written
 * so far). What the gateway reads must be there; the rest is checked in full only where
 * `checkRelayedAnswers` says (under test), as re-validating every chunk costs more than relaying it.
 */


const lengthOf = (value: unknown) => (typeof value === 'string' ? writtenWeight(value) : 0);

/** What a delta (or a message) writes, by `writtenWeight`: reasoning (under either name its host gives it), text, tool arguments. */
function writtenLength(delta: unknown): number {
  if (!isJsonObject(delta)) return 0;
  let length = lengthOf(delta.content) + (typeof delta.reasoning_content === 'string' ? writtenWeight(delta.reasoning_content) : lengthOf(delta.reasoning));
  if (Array.isArray(delta.tool_calls)) {
    for (const call of delta.tool_calls) if (isJsonObject(call) && isJsonObject(call.function)) length += lengthOf(call.function.arguments);
  }
  return length;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Details absent, or an object whose named parts are counts or absent (the rest passes, as the schema lets it). */
const plainDetails = (details: unknown, parts: readonly string[]): details is JsonObject | undefined =>
  details === undefined || (isJsonObject(details) && parts.every((part) => details[part] === undefined || isCount(details[part])));

const PROMPT_PARTS = ['cached_tokens', 'audio_tokens'] as const;
const COMPLETION_PARTS = ['reasoning_tokens', 'audio_tokens', 'accepted_prediction_tokens', 'rejected_prediction_tokens'] as const;

/**
 * A usage read as UpstreamChatUsage reads it, without the schema where it is plain (counts that
 * are counts, details absent or holding counts: every usage OpenAI sends); null for anything else,
 * which the schema evens out (nulls) or refuses. One schema parse per answer cost more than the
 * rest of reading it.
 */
export function plainUsage(value: unknown): ChatUsage | null {
  if (!isJsonObject(value)) return null;
  const { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total, prompt_tokens_details: promptDetails, completion_tokens_details: completionDetails } = value;
  if (!isCount(prompt) || !isCount(completion) || (total !== undefined && !isCount(total))) return null;
  if (!plainDetails(promptDetails, PROMPT_PARTS) || !plainDetails(completionDetails, COMPLETION_PARTS)) return null;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total ?? prompt + completion,
    ...(promptDetails ? { prompt_tokens_details: promptDetails } : {}),
    ...(completionDetails ? { completion_tokens_details: completionDetails } : {}),
  };
}

export function createChatRelay(upstream: Upstream, request: (call: ChatCall, stream: boolean) => JsonObject) {
  const provider = upstream.provider;
  const parse = <T extends z.ZodType>(schema: T, value: unknown, what: string) => parseUpstream(provider, schema, value, what);
  const usageOf = (value: unknown, what: string) => (value == null ? null : (plainUsage(value) ?? parse(UpstreamChatUsage, value, `${what}: usage`)));

  /**
   * One chunk as the relay reads it: a plain one from its text (chunk-scan.ts), any other parsed;
   * an error event, or a chunk the relay cannot read, is thrown. Under test every chunk is parsed,
   * and a scan that reads it otherwise is a bug.
   */
  function chunkOf(data: string): RelayedChatChunk {
    const scanned = scanChunk(data);
    if (scanned && !checkRelayedAnswers) return { data, json: null, ...scanned, usage: null, serviceTier: null };
    const parsed = parsedChunk(data);
    if (scanned && (scanned.hasChoices !== parsed.hasChoices || scanned.written !== parsed.written || parsed.usage)) {
      throw new Error(`the chunk scan read ${JSON.stringify(scanned)} where the parse read ${JSON.stringify({ ...parsed, data: undefined, json: undefined })}: ${data}`);
    }
    return parsed;
  }

  function parsedChunk(data: string): RelayedChatChunk {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw upstreamBadResponse(provider, 'a stream event that is not JSON');
    }
    if (!isJsonObject(json)) throw upstreamBadResponse(provider, 'a chat completion chunk that is not an object');
    if ('error' in json) {
      const failure = UpstreamStreamError.safeParse(json);
      if (failure.success) throw upstreamStreamError(provider, upstream.redact(failure.data));
    }
    if (checkRelayedAnswers) parse(UpstreamChatChunk, json, 'a chat completion chunk');
    const { choices } = json;
    if (!Array.isArray(choices)) throw upstreamBadResponse(provider, 'a chat completion chunk: choices is not a list');
    let written = 0;
    for (const choice of choices) if (isJsonObject(choice)) written += writtenLength(choice.delta);
    return {
      data,
      json,
      hasChoices: choices.length > 0,
      written,
      usage: usageOf(json.usage, 'a chat completion chunk'),
      serviceTier: typeof json.service_tier === 'string' ? json.service_tier : null,
    };
  }

  return {
    async relayChat(call: ChatCall): Promise<RelayedCompletion> {
      const answer = await upstream.json('/chat/completions', { body: request(call, false), signal: call.signal });
      if (checkRelayedAnswers) parse(UpstreamChatCompletion, answer, 'a chat completion');
      if (!isJsonObject(answer) || !Array.isArray(answer.choices) || answer.choices.length === 0) {
        throw upstreamBadResponse(provider, 'a chat completion: choices is not a list of at least one');
      }
      // An upstream that does not count gets an estimate: what is billed is what the answer says.
      const first: unknown = answer.choices[0];
      const usage = usageOf(answer.usage, 'a chat completion') ?? estimatedUsage(call, isJsonObject(first) ? first.message : null);
      answer.usage = usage;
      return { answer: answer as RelayedCompletion['answer'], usage: tokenUsageOfChat(usage, typeof answer.service_tier === 'string' ? answer.service_tier : null) };
    },

    async *relayChatStream(call: ChatCall): AsyncGenerator<RelayedChatBatch> {
      const response = await upstream.send('/chat/completions', { body: request(call, true), signal: call.signal, headers: { accept: 'text/event-stream' } });
      // The chunks of one piece of the body go on together: one step of each layer above per
      // piece, not per chunk. A chunk that cannot be read ends the stream after those before it.
      // Leaving early (the caller gone, or [DONE]) ends the body, cut if it is still arriving.
      for await (const batch of eventBatches(upstream.read(response, call.signal))) {
        // Events already read stay unsent once the caller has gone.
        call.signal.throwIfAborted();
        const chunks: RelayedChatChunk[] = [];
        let done = false;
        try {
          for (const { data } of batch) {
            if (data === '[DONE]') {
              done = true;
              break;
            }
            if (data.trim() !== '') chunks.push(chunkOf(data));
          }
        } finally {
          if (chunks.length > 0) yield { chunks, ended: done };
        }
        if (done) return;
      }
      throw upstreamBadResponse(provider, 'the stream ended without [DONE]');
    },
  };
}

/** Usage by estimate, for an upstream that does not count (some local servers do not). */
function estimatedUsage(call: ChatCall, message: unknown) {
  const input = estimateChatInputTokens(call.body, UNBOUNDED);
  const output = tokensOfLength(writtenLength(message));
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}
