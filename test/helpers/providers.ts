import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import type { UpstreamProvider } from '../../server/providers/registry.js';
import type { ChatChunk, ModelEntry, ProviderAdapter } from '../../server/providers/types.js';

/**
 * A paid provider for metering tests: the local echo model, sold at real-looking prices.
 * `paid/echo` costs 1000 USD per million input tokens and 2000 per million output tokens, that is
 * 0.1 and 0.2 credits a token, so a few requests move a visible amount.
 */
export function pricedProvider(adapter: ProviderAdapter = createLocalAdapter()): UpstreamProvider {
  const model = (id: string, capabilities: ModelEntry['capabilities'], maxOutput = 100): ModelEntry => ({
    id: `paid/${id}`,
    provider: 'paid',
    model: id,
    inputPrice: 1000,
    outputPrice: 2000,
    contextLength: 8192,
    defaultMaxOutputTokens: maxOutput,
    capabilities,
  });
  return { id: 'paid', adapter, models: [model('echo', ['chat', 'tools', 'responses']), model('embed', ['embeddings'])] };
}

/**
 * An adapter whose stream the test releases piece by piece: it yields `before` pieces at once,
 * then waits until the request is aborted. For testing what happens when a client goes away.
 */
export function stallingAdapter(before: string[]): ProviderAdapter & { aborted: Promise<void> } {
  let markAborted: () => void = () => {};
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  const base = { id: 'chatcmpl-stall', object: 'chat.completion.chunk' as const, created: 0, model: 'stall' };
  return {
    aborted,
    chat: () => Promise.reject(new Error('stream only')),
    async *chatStream(call) {
      yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] } satisfies ChatChunk;
      for (const piece of before) yield { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
      await new Promise<void>((_, reject) => {
        call.signal.addEventListener('abort', () => {
          markAborted();
          reject(new Error('aborted'));
        });
      });
    },
  };
}

/** An adapter whose (non-streamed) chat never answers until the request is aborted. */
export function stallingChatAdapter(): ProviderAdapter & { aborted: Promise<void>; started: Promise<void> } {
  let markAborted: () => void = () => {};
  let markStarted: () => void = () => {};
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    aborted,
    started,
    chat: (call) =>
      new Promise((_, reject) => {
        markStarted();
        call.signal.addEventListener('abort', () => {
          markAborted();
          reject(new Error('aborted'));
        });
      }),
    chatStream: () => {
      throw new Error('not streamed');
    },
  };
}

/**
 * A free provider whose one chat model, `script/answer`, streams `answer` in small deltas, as a
 * model writing a long markdown answer does (and answers the same when not streamed).
 */
export function scriptedProvider(
  answer: () => string,
  chunkSize = 9,
  pace: () => Promise<unknown> = () => new Promise((resolve) => setImmediate(resolve)),
): UpstreamProvider {
  const base = { id: 'chatcmpl-script', object: 'chat.completion.chunk' as const, created: 0, model: 'answer' };
  const usage = (text: string) => ({ prompt_tokens: 10, completion_tokens: Math.ceil(text.length / 4), total_tokens: 10 + Math.ceil(text.length / 4) });
  const adapter: ProviderAdapter = {
    async chat() {
      const text = answer();
      return {
        completion: {
          id: 'chatcmpl-script',
          object: 'chat.completion',
          created: 0,
          model: 'answer',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: usage(text),
        },
        usage: { inputTokens: 10, outputTokens: Math.ceil(text.length / 4) },
      };
    },
    async *chatStream(call) {
      const text = answer();
      yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] } satisfies ChatChunk;
      for (let i = 0; i < text.length; i += chunkSize) {
        if (call.signal.aborted) return;
        yield { ...base, choices: [{ index: 0, delta: { content: text.slice(i, i + chunkSize) }, finish_reason: null }] };
        // A model writes over time: let the reader see each piece on its own.
        await pace();
      }
      yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: usage(text) };
    },
  };
  const model: ModelEntry = {
    id: 'script/answer',
    provider: 'script',
    model: 'answer',
    inputPrice: 0,
    outputPrice: 0,
    contextLength: 100_000,
    defaultMaxOutputTokens: 4096,
    capabilities: ['chat', 'tools', 'responses'],
  };
  return { id: 'script', adapter, models: [model] };
}

/** The local echo model behind a gate: calls start at once and answer when `open()` is called. */
export function gatedEcho() {
  const local = createLocalAdapter();
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let started = 0;
  const listeners = new Set<() => void>();
  const adapter: ProviderAdapter = {
    ...local,
    async chat(call) {
      started += 1;
      for (const listener of listeners) listener();
      await gate;
      return local.chat(call);
    },
  };
  return { adapter: { ...adapter, open: () => open() }, open: () => open(), started: () => started, onStart: (listener: () => void) => listeners.add(listener) };
}
