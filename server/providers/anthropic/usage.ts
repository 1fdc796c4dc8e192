import { z } from 'zod';
import type { TokenUsage } from '../types.js';

/**
 * Anthropic's usage object, as its answers, `message_start` and `message_delta` carry it. Its
 * `input_tokens` leave out the cache: `cache_read_input_tokens` and
 * `cache_creation_input_tokens` come on top, and `cache_creation` splits the writes by ttl.
 */
export const AnthropicUsage = z.looseObject({
  input_tokens: z.number().int().nonnegative().nullish(),
  output_tokens: z.number().int().nonnegative().nullish(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
  cache_creation: z
    .looseObject({
      ephemeral_5m_input_tokens: z.number().int().nonnegative().nullish(),
      ephemeral_1h_input_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
  server_tool_use: z.looseObject({ web_search_requests: z.number().int().nonnegative().nullish() }).nullish(),
});
export type AnthropicUsage = z.infer<typeof AnthropicUsage>;

/**
 * Anthropic's counts in the gateway's convention (input = every input token, the cache's parts
 * inside it). A write the upstream does not split by ttl is taken as a 5-minute one, the default.
 */
export function tokenUsageOf(usage: AnthropicUsage): TokenUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWritten = usage.cache_creation_input_tokens ?? 0;
  const written1h = Math.min(cacheWritten, usage.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWritten,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWritten - written1h,
    cacheWrite1hTokens: written1h,
    ...(usage.server_tool_use?.web_search_requests ? { webSearchCalls: usage.server_tool_use.web_search_requests } : {}),
  };
}

/**
 * A stream's usage so far: `message_start` gives the input side (and a first output count),
 * each `message_delta` the cumulative output and, in newer versions, the input side again.
 */
export function mergeUsage(sofar: AnthropicUsage, update: AnthropicUsage): AnthropicUsage {
  const merged: AnthropicUsage = { ...sofar };
  for (const [key, value] of Object.entries(update)) if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  return merged;
}
