import { parseEventStream } from '../../../src/contract/sse.js';
import type { ProviderAdapter } from '../types.js';
import type { Upstream } from '../upstream.js';
import { createNativeMessages } from './native.js';
import { createStreamTranslator, fromAnthropicMessage } from './from-anthropic.js';
import { structuredAnswerOf, toAnthropicRequest } from './to-anthropic.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicAdapterOptions {
  /**
   * The HTTP client for the Messages API: its base URL ends in `/v1` (e.g.
   * `https://api.anthropic.com/v1`) and its headers carry the key as `x-api-key` (whoever
   * creates the upstream sets it; the adapter adds only `anthropic-version`).
   */
  upstream: Upstream;
  /** The `anthropic-version` header; default `2023-06-01`. */
  version?: string;
}

/**
 * Anthropic's Messages API behind the OpenAI chat interface (to-anthropic.ts and
 * from-anthropic.ts say what maps to what), and relayed as it is behind the gateway's own
 * Messages front door (native.ts). No embeddings (Anthropic has none) and no native Responses
 * API: the gateway translates responses to chat completions. `close` closes the upstream's pool.
 */
export function createAnthropicAdapter(options: AnthropicAdapterOptions): ProviderAdapter {
  const { upstream } = options;
  const headers = { 'anthropic-version': options.version ?? ANTHROPIC_VERSION };
  const names = (model: string) => ({ provider: upstream.provider, model: `${upstream.provider}/${model}` });

  return {
    async chat(call) {
      const answer = await upstream.json('/messages', { body: toAnthropicRequest(call), signal: call.signal, headers });
      return fromAnthropicMessage(answer, { ...names(call.model), answer: structuredAnswerOf(call.body)?.answer ?? null });
    },

    async *chatStream(call) {
      const response = await upstream.send('/messages', {
        body: { ...toAnthropicRequest(call), stream: true },
        signal: call.signal,
        headers: { ...headers, accept: 'text/event-stream' },
      });
      const translator = createStreamTranslator({ ...names(call.model), redact: upstream.redact, answer: structuredAnswerOf(call.body)?.answer ?? null });
      // Leaving the loop early (a client gone) ends the body, which releases the connection.
      for await (const event of parseEventStream(upstream.read(response, call.signal))) {
        // Events already read stay unsent once the caller has gone.
        call.signal.throwIfAborted();
        yield* translator.push(event);
      }
      translator.end();
    },

    messages: createNativeMessages(upstream, headers['anthropic-version']),

    close: () => upstream.close(),
  };
}
