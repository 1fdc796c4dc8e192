import { z } from 'zod';
import { ToolCall } from '../../../src/contract/schemas/inference.js';

/**
 * What an OpenAI-compatible upstream answers, as far as the gateway relies on it. Upstream
 * answers are a boundary: they are validated here, and what cannot be used becomes a 502
 * (`upstream_bad_response`). Objects are loose, so fields we do not read pass through; where
 * upstreams differ (null or absent, a missing total) the schemas even them out.
 */

/** Null or absent, as upstreams differ on which they send, read as absent. */
const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
/** Null or absent read as null. */
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? null);

const count = z.number().int().nonnegative();
const seconds = z.number().transform((n) => Math.floor(n));

/**
 * The parts of the counts, where the upstream reports them (OpenAI always does; many compatible
 * servers do not): kept as sent, for the client and for pricing.
 */
const PromptDetails = z.looseObject({ cached_tokens: absent(count), audio_tokens: absent(count) });
const CompletionDetails = z.looseObject({
  reasoning_tokens: absent(count),
  audio_tokens: absent(count),
  accepted_prediction_tokens: absent(count),
  rejected_prediction_tokens: absent(count),
});

/** A chat completion's usage, evened out (a missing total summed, null details left out): what a relay reads and bills. */
export const UpstreamChatUsage = z
  .looseObject({
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count.optional(),
    prompt_tokens_details: absent(PromptDetails),
    completion_tokens_details: absent(CompletionDetails),
  })
  .transform(({ prompt_tokens_details, completion_tokens_details, ...u }) => ({
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
    ...(prompt_tokens_details ? { prompt_tokens_details } : {}),
    ...(completion_tokens_details ? { completion_tokens_details } : {}),
  }));

/** Reasoning text beside the answer: DeepSeek and vLLM send `reasoning_content`, OpenRouter `reasoning`. */
const Reasoning = { reasoning_content: absent(z.string()), reasoning: absent(z.string()) };

/** The reasoning text of a message or a delta, whichever name its host gave it ('' when none). */
export function reasoningText(part: object): string {
  // Read, not trusted: a message passed along loosely may hold anything under these names.
  const { reasoning_content: content, reasoning } = part as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof content === 'string') return content;
  return typeof reasoning === 'string' ? reasoning : '';
}

/** Everything a message or a delta writes (reasoning, text, tool arguments), to count where the upstream does not. */
export function writtenText(part: { content?: string | null; tool_calls?: { function?: { arguments?: string } }[] }): string {
  return reasoningText(part) + (part.content ?? '') + (part.tool_calls?.map((call) => call.function?.arguments ?? '').join('') ?? '');
}

/** The stop that ended an answer, where the server says: vLLM's `stop_reason`, SGLang's `matched_stop` (a stop string or a token id). */
const MatchedStop = { stop_reason: absent(z.union([z.string(), z.number()])), matched_stop: absent(z.union([z.string(), z.number()])) };

/**
 * The stop sequence that ended a choice, where its host names it (a string there is one of the
 * request's `stop`; a number, a stop token). OpenAI itself never says which one matched.
 */
export function matchedStopSequence(choice: { finish_reason?: unknown; stop_reason?: unknown; matched_stop?: unknown }): string | null {
  if (choice.finish_reason !== 'stop') return null;
  const matched = [choice.stop_reason, choice.matched_stop].find((value) => typeof value === 'string');
  return typeof matched === 'string' ? matched : null;
}

export const UpstreamChatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: seconds,
  model: z.string(),
  choices: z
    .array(
      z.looseObject({
        index: count,
        message: z.looseObject({
          role: z.literal('assistant'),
          content: nullable(z.string()),
          ...Reasoning,
          tool_calls: absent(z.array(ToolCall)),
        }),
        finish_reason: nullable(z.string()),
        ...MatchedStop,
      }),
    )
    .min(1),
  usage: absent(UpstreamChatUsage),
});

const ToolCallDelta = z.looseObject({
  index: absent(count),
  id: absent(z.string()),
  type: absent(z.literal('function')),
  function: absent(z.looseObject({ name: absent(z.string()), arguments: absent(z.string()) })),
});

export const UpstreamChatChunk = z.looseObject({
  id: z.string(),
  // Not checked: Azure, for one, opens its streams with a chunk whose `object` is ''.
  object: z.unknown().transform(() => 'chat.completion.chunk' as const),
  created: seconds,
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: count,
      delta: z.looseObject({
        role: absent(z.literal('assistant')),
        content: z.string().nullish(),
        ...Reasoning,
        // Some servers leave out `index`; the position in the list stands in for it.
        tool_calls: absent(z.array(ToolCallDelta)).transform((calls) => calls?.map((call, i) => ({ ...call, index: call.index ?? i }))),
      }),
      finish_reason: nullable(z.string()),
      ...MatchedStop,
    }),
  ),
  usage: absent(UpstreamChatUsage),
  service_tier: z.string().nullish(),
});

/** `data: {"error": …}` in a chat stream: the upstream's message. */
export const UpstreamStreamError = z
  .looseObject({ error: z.union([z.string(), z.looseObject({ message: z.string().optional() })]) })
  .transform(({ error }) => (typeof error === 'string' ? error : (error.message ?? 'no message')));

export const UpstreamEmbeddingList = z.looseObject({
  data: z.array(z.looseObject({ index: count, embedding: z.array(z.number()) })),
  usage: absent(z.looseObject({ prompt_tokens: count })),
});

/** A Responses API object, loosely: it is passed through. */
export const UpstreamResponseObject = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  status: z.string(),
  output: z.array(z.looseObject({ type: z.string() })),
});

/** One event of a streamed response; `error` events carry a `message`. */
export const UpstreamResponseEvent = z.looseObject({ type: z.string(), message: z.unknown().optional() });
