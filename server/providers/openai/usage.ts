import { z } from 'zod';
import type { ChatUsage, TokenUsage } from '../types.js';

/**
 * OpenAI's usage objects (chat completions and the Responses API) ⇄ the gateway's TokenUsage.
 * OpenAI counts as the gateway does — the cached prompt inside the prompt tokens, the reasoning
 * inside the completion tokens — so only the details move; they are what prices them apart.
 */

/** The parts of a usage an upstream reported; a part it left out stays out (priced as plain). */
interface Parts {
  cached?: number | null;
  reasoning?: number | null;
  /** Every cache write, the hour-long ones included (as OpenRouter reports `cache_write_tokens`). */
  cacheWritten?: number | null;
  cacheWritten1h?: number | null;
  webSearches?: number;
  servedTier?: string | null;
}

function withParts(input: number, output: number, parts: Parts): TokenUsage {
  const written1h = Math.min(parts.cacheWritten ?? 0, parts.cacheWritten1h ?? 0);
  return {
    inputTokens: input,
    outputTokens: output,
    ...(parts.cached != null ? { cacheReadTokens: parts.cached } : {}),
    ...(parts.reasoning != null ? { reasoningTokens: parts.reasoning } : {}),
    ...(parts.cacheWritten != null ? { cacheWriteTokens: parts.cacheWritten - written1h, cacheWrite1hTokens: written1h } : {}),
    ...(parts.webSearches ? { webSearchCalls: parts.webSearches } : {}),
    ...(parts.servedTier ? { serviceTier: parts.servedTier } : {}),
  };
}

/**
 * A chat completion's usage, `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens` included, with the `service_tier` the answer says
 * served it (what is billed). Cache writes come only from another protocol's adapter (chatUsageOf).
 */
export function tokenUsageOfChat(usage: ChatUsage, servedTier?: string | null): TokenUsage {
  const prompt = usage.prompt_tokens_details;
  return withParts(usage.prompt_tokens, usage.completion_tokens, {
    cached: prompt?.cached_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens,
    cacheWritten: prompt?.cache_write_tokens,
    cacheWritten1h: prompt?.cache_write_1h_tokens,
    servedTier,
  });
}

/**
 * TokenUsage as a chat completion's usage, with the details the usage knows (what another
 * protocol's adapter reports): an Anthropic upstream's cache writes ride along as
 * `cache_write_tokens`, so a translated stream is billed for them like a direct answer.
 */
export function chatUsageOf(usage: TokenUsage): ChatUsage {
  const written = (usage.cacheWriteTokens ?? 0) + (usage.cacheWrite1hTokens ?? 0);
  const promptDetails = {
    ...(usage.cacheReadTokens !== undefined ? { cached_tokens: usage.cacheReadTokens } : {}),
    ...(written > 0 ? { cache_write_tokens: written } : {}),
    ...(usage.cacheWrite1hTokens ? { cache_write_1h_tokens: usage.cacheWrite1hTokens } : {}),
  };
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(Object.keys(promptDetails).length > 0 ? { prompt_tokens_details: promptDetails } : {}),
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

/** What of a native upstream's response object pricing reads: its usage, the tier that served it, its web searches. */
const PricedResponse = z.looseObject({
  usage: z.unknown(),
  service_tier: z.string().nullish(),
  output: z.array(z.looseObject({ type: z.string() })).nullish(),
});

/**
 * A Responses API response (a native upstream's) as TokenUsage, or null when it has no counts:
 * the served `service_tier` is billed, and each `web_search_call` item at the web-search price.
 */
export function tokenUsageOfResponse(response: unknown): TokenUsage | null {
  const priced = PricedResponse.safeParse(response);
  const usage = ResponsesUsage.safeParse(priced.success ? priced.data.usage : undefined);
  if (!priced.success || !usage.success) return null;
  const u = usage.data;
  return withParts(u.input_tokens, u.output_tokens, {
    cached: u.input_tokens_details?.cached_tokens,
    reasoning: u.output_tokens_details?.reasoning_tokens,
    webSearches: (priced.data.output ?? []).filter((item) => item.type === 'web_search_call').length,
    servedTier: priced.data.service_tier,
  });
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
