import { z } from 'zod';
import { eventBatches } from '../../../src/contract/sse.js';
import { parseUpstream, upstreamBadResponse, upstreamStreamError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json-object.js';
import type { MessagesCall, NativeMessages, RelayedEvent } from '../types.js';
import type { Upstream } from '../upstream.js';
import { AnthropicUsage, tokenUsageOf } from './usage.js';

/** What the gateway reads of a relayed answer: its usage (the rest goes to the client untouched). */
const RelayedMessage = z.looseObject({ type: z.literal('message'), usage: AnthropicUsage });
const TokenCount = z.looseObject({ input_tokens: z.number().int().nonnegative() });
const StreamError = z.looseObject({ error: z.looseObject({ type: z.string(), message: z.string().optional() }) });

/** The type a stream event's JSON names, for an upstream that leaves out the `event:` line. */
function typeOf(data: string): string {
  const match = /"type"\s*:\s*"([a-z_]+)"/.exec(data);
  return match?.[1] ?? 'message';
}

/** An error event's message, for our own error in its place. */
function errorMessageOf(data: string): string {
  let json: unknown = null;
  try {
    json = JSON.parse(data);
  } catch {
    // not JSON: said below
  }
  const parsed = StreamError.safeParse(json);
  return parsed.success ? (parsed.data.error.message ?? parsed.data.error.type) : 'an error event that could not be read';
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
      const answer = await upstream.json('/messages', init(call));
      // Only the type and the usage are read: checked on their own, the answer goes on uncopied.
      const read = isJsonObject(answer) ? { type: answer.type, usage: answer.usage } : answer;
      const { usage } = parseUpstream(upstream.provider, RelayedMessage, read, 'message');
      return { answer: answer as JsonObject, usage: tokenUsageOf(usage) };
    },

    async *stream(call) {
      const request = init(call, { stream: true });
      const response = await upstream.send('/messages', { ...request, headers: { ...request.headers, accept: 'text/event-stream' } });
      let relayed = false;
      let stopped = false;
      // The events of one piece of the body go on together: one step of each layer above per
      // piece, not per event. Leaving early (a client gone) ends the body, which releases the connection.
      for await (const batch of eventBatches(upstream.read(response, call.signal))) {
        call.signal.throwIfAborted();
        yield batch.map(({ event, data }): RelayedEvent => {
          const name = event ?? typeOf(data);
          // An error in place of an answer is a failed attempt (another target may answer); after
          // the first event it is the client's, relayed as Anthropic sent it.
          if (name === 'error' && !relayed) throw upstreamStreamError(upstream.provider, upstream.redact(errorMessageOf(data)));
          relayed = true;
          // An error event ends a stream too: it was said, and must not be said twice.
          stopped ||= name === 'message_stop' || name === 'error';
          return { event: name, data };
        });
      }
      // A body that ends before message_stop (or an error) was cut: the client must not take it for a whole answer.
      if (!stopped) throw upstreamBadResponse(upstream.provider, 'the stream ended before message_stop');
    },

    async countTokens(call) {
      const answer = await upstream.json('/messages/count_tokens', init(call));
      return parseUpstream(upstream.provider, TokenCount, answer, 'token count').input_tokens;
    },
  };
}
