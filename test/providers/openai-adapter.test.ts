import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIAdapter } from '../../server/providers/openai/adapter.js';
import type { ChatBody, ChatCall, ChatChunk, ProviderAdapter } from '../../server/providers/types.js';
import { createUpstream } from '../../server/providers/upstream.js';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { apiError, collect } from '../helpers/adapters.js';

let fake: FakeOpenAI;
let adapter: ProviderAdapter;

beforeEach(async () => {
  fake = await startFakeOpenAI();
  const upstream = createUpstream({
    provider: 'openai',
    baseUrl: fake.url,
    headers: { authorization: `Bearer ${fake.apiKey}` },
  });
  adapter = createOpenAIAdapter({ upstream, supportsResponses: true });
});

afterEach(async () => {
  await adapter.close?.();
  await fake.close();
});

function chatCall(body: Partial<ChatBody> = {}, signal = new AbortController().signal): ChatCall {
  const messages: ChatBody['messages'] = [{ role: 'user', content: 'hello there' }];
  return { model: 'gpt-fake', body: { model: 'openai/gpt-fake', messages, ...body }, maxOutputTokens: 100, signal };
}

const weatherTool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } };

/** A scripted 200 event stream: each payload as one `data:` event (strings as they are, e.g. `[DONE]`). */
const sse = (...payloads: unknown[]): Behaviour => ({
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: payloads.map((p) => `data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`).join(''),
});
const chunk = (delta: object, extra: object = {}) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-fake',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe('openai adapter: chat', () => {
  it('sends the upstream model id without our own fields, and maps the completion and its usage', async () => {
    const call = chatCall({ image_model: 'openai/gpt-image-1', stream_options: { include_usage: true } });
    const { completion, usage } = await adapter.chat(call);
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'gpt-fake' });
    expect(completion.choices[0]?.message.content).toBe('You said: hello there');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(usage.outputTokens).toBe(4);
    // The counts as the upstream reported them, its details (cached, reasoning) passed through.
    expect(completion.usage).toMatchObject({ prompt_tokens: usage.inputTokens, completion_tokens: 4, total_tokens: usage.inputTokens + 4 });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(usage.cacheReadTokens ?? 0);

    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent?.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(sent?.body).toEqual({ model: 'gpt-fake', messages: [{ role: 'user', content: 'hello there' }], stream: false });
  });

  it('streams: role first, content deltas, finish_reason, then usage on the last chunk', async () => {
    const chunks = await collect(adapter.chatStream(chatCall({ image_model: 'x/y', stream_options: { include_usage: false } })));
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('You said: hello there');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ completion_tokens: 4, total_tokens: (last?.usage?.prompt_tokens ?? 0) + 4 });

    const sent = fake.requests[0]?.body;
    expect(sent).toMatchObject({ model: 'gpt-fake', stream: true, stream_options: { include_usage: true } });
    expect(sent).not.toHaveProperty('image_model');
  });

  it('streams a tool call in fragments that reassemble', async () => {
    const args = '{"city":"Paris","unit":"celsius"}';
    const call = chatCall({ tools: [weatherTool], messages: [{ role: 'user', content: `call get_weather ${args}` }] });
    const chunks: ChatChunk[] = await collect(adapter.chatStream(call));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(deltas[0]?.id).toMatch(/^call_/);
    expect(deltas.map((d) => d.function?.arguments ?? '').join('')).toBe(args);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');

    const { completion } = await adapter.chat(call);
    expect(completion.choices[0]?.message.tool_calls?.[0]?.function).toEqual({ name: 'get_weather', arguments: args });
  });

  it('aborting mid-stream aborts the upstream request', async () => {
    fake.script({ kind: 'stall', after: 3 });
    const controller = new AbortController();
    const stream = adapter.chatStream(chatCall({}, controller.signal))[Symbol.asyncIterator]();
    expect((await stream.next()).value?.choices[0]?.delta.role).toBe('assistant');
    expect((await stream.next()).done).toBe(false);
    controller.abort();
    // The upstream connection closes on the abort itself, before the stream is read again.
    expect(await fake.requests[0]?.outcome).toBe('closed');
    await expect(stream.next()).rejects.toThrow();
  });

  it('an error the upstream streams becomes a 502 with its message', async () => {
    const error = { error: { message: 'The server had an error while processing your request.', type: 'server_error' } };
    fake.script(sse(chunk({ role: 'assistant', content: 'Hi' }), error));
    const seen: ChatChunk[] = [];
    const reading = (async () => {
      for await (const c of adapter.chatStream(chatCall())) seen.push(c);
    })();
    await expect(reading).rejects.toMatchObject(apiError(502, 'upstream_error', 'while processing your request'));
    expect(seen).toHaveLength(1);
  });

  it('takes upstreams as they differ: an empty opening chunk, nulls for absent fields, tool calls without index', async () => {
    const opening = { id: '', object: '', created: 0, model: '', choices: [] };
    const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
    fake.script(sse(opening, chunk({ role: null, content: null, tool_calls: [call] }, { usage: null }), '[DONE]'));
    const chunks = await collect(adapter.chatStream(chatCall()));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.choices[0]?.delta.tool_calls).toEqual([{ index: 0, ...call }]);
    expect(chunks[0]?.usage).toBeUndefined();
  });

  it('estimates the usage of a completion the upstream did not count', async () => {
    const message = { role: 'assistant', content: 'four score and seven' };
    const body = { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message }] };
    fake.script({ kind: 'respond', status: 200, body });
    const { completion, usage } = await adapter.chat(chatCall());
    expect(usage).toEqual({ inputTokens: expect.any(Number), outputTokens: 5 });
    expect(completion.choices[0]?.finish_reason).toBeNull();
    expect(completion.usage?.total_tokens).toBe(usage.inputTokens + 5);
  });

  it.each([
    ['ends without [DONE]', sse(), /without \[DONE\]/],
    ['breaks off', { kind: 'cut', after: 2 }, /broke off/],
    ['sends a chunk of the wrong shape', sse({ choices: 'no' }), /chat completion chunk/],
    ['sends an event that is not JSON', sse('{oops'), /not JSON/],
  ] as const)('a stream that %s is a 502 upstream_bad_response', async (_name, behaviour, message) => {
    fake.script(behaviour);
    await expect(collect(adapter.chatStream(chatCall()))).rejects.toMatchObject(apiError(502, 'upstream_bad_response', message));
  });

  it('a completion of the wrong shape is a 502 upstream_bad_response', async () => {
    fake.script({ kind: 'respond', status: 200, body: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [] } });
    await expect(adapter.chat(chatCall())).rejects.toMatchObject(apiError(502, 'upstream_bad_response', 'choices'));
  });
});

describe('openai adapter: embeddings', () => {
  it('asks for floats with the dimensions, and returns the vectors in input order with the prompt tokens', async () => {
    const inputs = ['one two', 'three', [1, 2, 3]];
    const result = await adapter.embeddings!({ model: 'text-embedding-fake', inputs, dimensions: 4, signal: new AbortController().signal });
    expect(result.vectors).toHaveLength(3);
    expect(result.vectors.every((v) => v.length === 4)).toBe(true);
    expect(result.inputTokens).toBe(6);
    expect(fake.requests[0]?.body).toEqual({ model: 'text-embedding-fake', input: inputs, encoding_format: 'float', dimensions: 4 });
  });

  it('the fake encodes base64 as little-endian float32 of the same vectors', async () => {
    const post = (encoding_format: string) =>
      fetch(`${fake.url}/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'text-embedding-fake', input: 'hi', encoding_format }),
      }).then((r) => r.json() as Promise<{ data: { embedding: number[] | string }[] }>);
    const [floats, base64] = await Promise.all([post('float'), post('base64')]);
    const bytes = Buffer.from(base64.data[0]?.embedding as string, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(decoded).toEqual(floats.data[0]?.embedding);
    expect(decoded).toHaveLength(8);
  });
});

describe('openai adapter: Responses pass-through', () => {
  const responsesCall = (body: Record<string, unknown>) => ({
    model: 'gpt-fake',
    body: { model: 'openai/gpt-fake', ...body },
    signal: new AbortController().signal,
  });

  it('is there only when the upstream has it', () => {
    expect(createOpenAIAdapter({ upstream: createUpstream({ provider: 'p', baseUrl: fake.url, headers: {} }) }).responses).toBeUndefined();
    expect(adapter.responses).toBeDefined();
  });

  it('creates a response with the upstream model id, the body otherwise as the gateway gave it', async () => {
    const response = await adapter.responses!.create(responsesCall({ input: [{ role: 'user', content: 'hi' }] }));
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-fake' });
    expect(response.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: 'You said: hi' }] }]);
    expect(fake.requests[0]?.body).toEqual({ model: 'gpt-fake', input: [{ role: 'user', content: 'hi' }], stream: false });
  });

  it('streams typed events, from response.created to response.completed', async () => {
    const events = await collect(adapter.responses!.stream(responsesCall({ input: 'hi' })));
    expect(events[0]?.event).toBe('response.created');
    expect(events.at(-1)?.event).toBe('response.completed');
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    const deltas = events.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta);
    expect(deltas.join('')).toBe('You said: hi');
    expect(fake.requests[0]?.body).toMatchObject({ model: 'gpt-fake', input: 'hi', stream: true });
  });

  it('a streamed error event, or a stream that stops before the response is done, is a 502', async () => {
    const error = { type: 'error', code: 'server_error', message: 'overloaded', param: null, sequence_number: 1 };
    fake.script(sse(error), sse({ type: 'response.created' }));
    const streamed = () => collect(adapter.responses!.stream(responsesCall({ input: 'hi' })));
    await expect(streamed()).rejects.toMatchObject(apiError(502, 'upstream_error', 'overloaded'));
    await expect(streamed()).rejects.toMatchObject(apiError(502, 'upstream_bad_response', 'before the response did'));
  });
});
