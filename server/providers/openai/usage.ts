import { z } from 'zod';
import type { ChatUsage, TokenUsage } from '../types.js';

/**
 * OpenAI's usage objects (chat completions and the Responses API) ⇄ the gateway's TokenUsage.
 * OpenAI counts as the gateway does — the cached prompt inside the prompt tokens, the reasoning
 * inside the completion tokens — so only the details move; they are what prices them apart.
 */

/** TokenUsage with the parts an upstream reported; a part it left out stays out (priced as plain). */
function withParts(input: number, output: number, cached: number | null | undefined, reasoning: number | null | undefined): TokenUsage {
  return {
    inputTokens: input,
    outputTokens: output,
    ...(cached != null ? { cacheReadTokens: cached } : {}),
    ...(reasoning != null ? { reasoningTokens: reasoning } : {}),
  };
}

/** A chat completion's usage, `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens` included. */
export function tokenUsageOfChat(usage: ChatUsage): TokenUsage {
  return withParts(usage.prompt_tokens, usage.completion_tokens, usage.prompt_tokens_details?.cached_tokens, usage.completion_tokens_details?.reasoning_tokens);
}

/** TokenUsage as a chat completion's usage, with the details the usage knows (what another protocol's adapter reports). */
export function chatUsageOf(usage: TokenUsage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } } : {}),
    ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}

const count = z.number().int().nonnegative();

/** The Responses API's usage, as far as pricing reads it. */
const ResponsesUsage = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  input_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
});

/** A Responses API usage object (a native upstream's) as TokenUsage, or null when it has no counts. */
export function tokenUsageOfResponses(usage: unknown): TokenUsage | null {
  const parsed = ResponsesUsage.safeParse(usage);
  if (!parsed.success) return null;
  const u = parsed.data;
  return withParts(u.input_tokens, u.output_tokens, u.input_tokens_details?.cached_tokens, u.output_tokens_details?.reasoning_tokens);
}

/** TokenUsage as the Responses API reports it: OpenAI always sends both details, zeros included. */
export function responsesUsageOf(usage: TokenUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
