import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOpenAIAdapter } from '../../server/providers/openai/adapter.js';
import { plainUsage } from '../../server/providers/openai/relay.js';
import { UpstreamChatUsage } from '../../server/providers/openai/schemas.js';
import type { ChatBody, ChatCall, ProviderAdapter, RelayedChatChunk } from '../../server/providers/types.js';
import { createUpstream } from '../../server/providers/upstream.js';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { apiError, collect } from '../helpers/adapters.js';

// The relay as it runs in production: upstream answers are read, not checked in full (under test
// they are, everywhere else).
vi.mock('../../server/providers/answer-checks.js', () => ({ checkRelayedAnswers: false }));

let fake: FakeOpenAI;
let created: ProviderAdapter;
let adapter: Required<Pick<ProviderAdapter, 'relayChat' | 'relayChatStream'>>;

beforeEach(async () => {
  fake = await startFakeOpenAI();
  const upstream = createUpstream({ provider: 'openai', baseUrl: fake.url, headers: { authorization: `Bearer ${fake.apiKey}` } });
  created = createOpenAIAdapter({ upstream, supportsResponses: true });
  if (!created.relayChat || !created.relayChatStream) throw new Error('the OpenAI adapter relays chat completions');
  adapter = { relayChat: created.relayChat, relayChatStream: created.relayChatStream };
});

afterEach(async () => {
  await created.close?.();
  await fake.close();
});

function chatCall(body: Partial<ChatBody> = {}): ChatCall {
  return { model: 'gpt-fake', body: { model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hello there' }], ...body }, maxOutputTokens: 100, signal: new AbortController().signal };
}

/** A scripted 200 event stream: each payload as one `data:` event, text as it is. */
const sse = (...payloads: unknown[]): Behaviour => ({
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join(''),
});

describe('openai relay: streamed', () => {
  it('passes each chunk on as the upstream wrote it, reading the output written, the usage and the tier', async () => {
    // Spacing and field order a re-encoding would change; a field the gateway has never heard of.
    const first = '{ "id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-fake","choices":[{"index":0,"delta":{"content":"héllo","novel":[1,2]},"finish_reason":null}]}';
    const reasoning = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-fake', choices: [{ index: 0, delta: { reasoning_content: 'hmm', tool_calls: [{ function: { arguments: '{"a"' } }] }, finish_reason: null }] };
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-fake', service_tier: 'flex', choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } };
    fake.script(sse(first, reasoning, usage, '[DONE]'));
    const batches = await collect(adapter.relayChatStream(chatCall({ stream: true })));
    // The batch that came with [DONE] says the stream ends with it.
    expect(batches.map(({ ended }) => ended)).toEqual([...batches.slice(1).map(() => false), true]);
    const chunks = batches.flatMap((batch) => batch.chunks);
    expect(chunks.map((chunk) => chunk.data)).toEqual([first, JSON.stringify(reasoning), JSON.stringify(usage)]);
    expect(chunks.map(({ written, hasChoices }) => ({ written, hasChoices }))).toEqual([
      // By writtenWeight: ASCII 1 a character, any other 4 (héllo: 4 + 4).
      { written: 8, hasChoices: true },
      { written: 7, hasChoices: true },
      { written: 0, hasChoices: false },
    ]);
    expect(chunks[2]).toMatchObject<Partial<RelayedChatChunk>>({ usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 }, serviceTier: 'flex' });
    expect(chunks[0]?.usage).toBeNull();
    // Usage is always asked for: the gateway decides whether the client sees it.
    expect(fake.requests[0]?.body).toMatchObject({ model: 'gpt-fake', stream: true, stream_options: { include_usage: true } });
  });

  it.each([
    ['ends without [DONE]', sse(), /without \[DONE\]/],
    ['breaks off', { kind: 'cut', after: 2 }, /broke off/],
    ['sends chunks whose choices are not a list', sse({ choices: 'no' }), /choices is not a list/],
    ['sends an event that is not JSON', sse('{oops'), /not JSON/],
    ['sends JSON that is not an object', sse('[1]'), /not an object/],
    ['sends counts that are not counts', sse({ choices: [], usage: { prompt_tokens: -1, completion_tokens: 'x' } }), /usage/],
  ] as const)('a stream that %s is a 502 upstream_bad_response', async (_name, behaviour, message) => {
    fake.script(behaviour);
    await expect(collect(adapter.relayChatStream(chatCall({ stream: true })))).rejects.toMatchObject(apiError(502, 'upstream_bad_response', message));
  });

  it('an error event is a 502 that passes the upstream’s message on', async () => {
    fake.script(sse({ error: { message: 'overloaded, sorry' } }));
    await expect(collect(adapter.relayChatStream(chatCall({ stream: true })))).rejects.toMatchObject(apiError(502, 'upstream_error', 'overloaded, sorry'));
  });
});

describe('openai relay: not streamed', () => {
  it('returns the upstream’s answer as it sent it, its usage evened out and read', async () => {
    const body = { id: 'x', object: 'chat.completion', created: 1.5, model: 'm', novel: { a: 1 }, service_tier: 'priority', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }], usage: { prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: null } };
    fake.script({ kind: 'respond', status: 200, body });
    const { answer, usage } = await adapter.relayChat(chatCall());
    expect(answer).toEqual({ ...body, usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
    expect(usage).toEqual({ inputTokens: 3, outputTokens: 1, serviceTier: 'priority' });
  });

  it('estimates the usage of an answer the upstream did not count, and sets it in the answer', async () => {
    const message = { role: 'assistant', content: 'four score and seven' };
    fake.script({ kind: 'respond', status: 200, body: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message }] } });
    const { answer, usage } = await adapter.relayChat(chatCall());
    expect(usage).toEqual({ inputTokens: expect.any(Number), outputTokens: 5 });
    expect(answer.usage).toEqual({ prompt_tokens: usage.inputTokens, completion_tokens: 5, total_tokens: usage.inputTokens + 5 });
  });

  it.each([
    ['no choices', { id: 'x', choices: [] }, 'choices'],
    ['no JSON object', [1, 2], 'choices'],
    ['bad counts', { choices: [{}], usage: { prompt_tokens: 'many' } }, 'usage'],
  ])('an answer with %s is a 502 upstream_bad_response', async (_name, body, message) => {
    fake.script({ kind: 'respond', status: 200, body });
    await expect(adapter.relayChat(chatCall())).rejects.toMatchObject(apiError(502, 'upstream_bad_response', message));
  });
});

describe('openai relay: usage read without the schema', () => {
  it('reads a plain usage exactly as the schema does, and leaves the rest to it', () => {
    const plain = [
      { prompt_tokens: 9, completion_tokens: 4 },
      { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, cost_details: { x: 1 } },
      {
        prompt_tokens: 1200,
        completion_tokens: 40,
        total_tokens: 1240,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 16, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      { prompt_tokens: 5, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 5 } },
    ];
    for (const usage of plain) expect(plainUsage(usage)).toEqual(UpstreamChatUsage.parse(usage));
    const others = [
      { prompt_tokens: 9, completion_tokens: 4, prompt_tokens_details: null },
      { prompt_tokens: 9, completion_tokens: 4, prompt_tokens_details: { cached_tokens: null } },
      { prompt_tokens: 9.5, completion_tokens: 4 },
      { prompt_tokens: -1, completion_tokens: 4 },
      { prompt_tokens: 9, completion_tokens: 4, completion_tokens_details: { reasoning_tokens: '3' } },
      { prompt_tokens: 9 },
      'usage',
    ];
    for (const usage of others) expect(plainUsage(usage)).toBeNull();
  });
});

describe('openai relay: a native response, not streamed', () => {
  it('is passed on as it came where it has what the gateway reads, and a 502 naming the fault where not', async () => {
    const response = { id: 'resp_1', object: 'response', status: 'completed', novel: true, output: [{ type: 'message', content: [] }] };
    fake.script({ kind: 'respond', status: 200, body: response }, { kind: 'respond', status: 200, body: { ...response, output: [{ content: [] }] } });
    const call = { model: 'gpt-fake', body: { input: 'hi' }, signal: new AbortController().signal };
    expect(await created.responses?.create(call)).toEqual(response);
    await expect(created.responses?.create(call)).rejects.toMatchObject(apiError(502, 'upstream_bad_response', 'output.0.type'));
  });
});
