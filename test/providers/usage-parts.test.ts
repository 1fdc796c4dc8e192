import { describe, expect, it } from 'vitest';
import { tokenUsageOf } from '../../server/providers/anthropic/usage.js';
import { chatUsageOf, tokenUsageOfChat, tokenUsageOfResponse } from '../../server/providers/openai/usage.js';

/**
 * Every part of a usage an upstream reports reaches the price: the served tier, web searches, and
 * an Anthropic upstream's cache writes when its answer travels as chat chunks (a translated stream).
 */
describe('usage parts', () => {
  it('an Anthropic answer’s web searches are counted (server_tool_use.web_search_requests)', () => {
    const usage = tokenUsageOf({ input_tokens: 100, output_tokens: 20, server_tool_use: { web_search_requests: 3 } });
    expect(usage).toMatchObject({ inputTokens: 100, outputTokens: 20, webSearchCalls: 3 });
    expect(tokenUsageOf({ input_tokens: 1, output_tokens: 1 }).webSearchCalls).toBeUndefined();
  });

  it('cache writes survive the trip through chat usage, the hour-long ones apart', () => {
    const anthropic = tokenUsageOf({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 1_000,
      cache_creation_input_tokens: 3_000,
      cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 2_000 },
    });
    const chat = chatUsageOf(anthropic);
    expect(chat.prompt_tokens_details).toEqual({ cached_tokens: 1_000, cache_write_tokens: 3_000, cache_write_1h_tokens: 2_000 });
    expect(tokenUsageOfChat(chat)).toEqual(anthropic);
  });

  it('an OpenAI answer bills the tier that served it', () => {
    expect(tokenUsageOfChat({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }, 'flex').serviceTier).toBe('flex');
    expect(tokenUsageOfChat({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }, null).serviceTier).toBeUndefined();
  });

  it('a native response counts its web_search_call items and its served tier', () => {
    const usage = tokenUsageOfResponse({
      service_tier: 'priority',
      output: [{ type: 'web_search_call' }, { type: 'web_search_call' }, { type: 'message' }],
      usage: { input_tokens: 50, output_tokens: 7, input_tokens_details: { cached_tokens: 10 }, output_tokens_details: { reasoning_tokens: 2 } },
    });
    expect(usage).toEqual({ inputTokens: 50, outputTokens: 7, cacheReadTokens: 10, reasoningTokens: 2, webSearchCalls: 2, serviceTier: 'priority' });
    expect(tokenUsageOfResponse({ output: [] })).toBeNull();
  });
});
