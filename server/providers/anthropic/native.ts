import { z } from 'zod';
import { parseEventStream } from '../../../src/contract/sse.js';
import { parseUpstream } from '../errors.js';
import type { MessagesCall, NativeMessages } from '../types.js';
import type { Upstream } from '../upstream.js';
import { AnthropicUsage, tokenUsageOf } from './usage.js';

/** What the gateway reads of a relayed answer: its usage (the rest goes to the client untouched). */
const RelayedMessage = z.looseObject({ type: z.literal('message'), usage: AnthropicUsage });
const TokenCount = z.looseObject({ input_tokens: z.number().int().nonnegative() });

/** The type a stream event's JSON names, for an upstream that leaves out the `event:` line. */
function typeOf(data: string): string {
  const match = /"type"\s*:\s*"([a-z_]+)"/.exec(data);
  return match?.[1] ?? 'message';
}

/**
 * Anthropic's Messages API relayed as it is: the client's body with only `model` set to the
 * upstream's id, the client's `anthropic-version` and `anthropic-beta`, and the answer or the
 * events as they arrive. Nothing is translated, so thinking and its signatures, cache
 * breakpoints, server tools and fields newer than this code reach the upstream and come back.
 */
export function createNativeMessages(upstream: Upstream, defaultVersion: string): NativeMessages {
  const init = (call: MessagesCall, extra: Record<string, unknown> = {}) => ({
    body: { ...call.body, model: call.model, ...extra },
    signal: call.signal,
    headers: {
      'anthropic-version': call.headers.version ?? defaultVersion,
      ...(call.headers.beta ? { 'anthropic-beta': call.headers.beta } : {}),
    },
  });

  return {
    async create(call) {
      const answer = parseUpstream(upstream.provider, RelayedMessage, await upstream.json('/messages', init(call)), 'message');
      return { answer, usage: tokenUsageOf(answer.usage) };
    },

    async *stream(call) {
      const request = init(call, { stream: true });
      const response = await upstream.send('/messages', { ...request, headers: { ...request.headers, accept: 'text/event-stream' } });
      // Leaving the loop early (a client gone) ends the body, which releases the connection.
      for await (const event of parseEventStream(upstream.read(response, call.signal))) {
        call.signal.throwIfAborted();
        yield { event: event.event ?? typeOf(event.data), data: event.data };
      }
    },

    async countTokens(call) {
      const answer = await upstream.json('/messages/count_tokens', init(call));
      return parseUpstream(upstream.provider, TokenCount, answer, 'token count').input_tokens;
    },
  };
}
