import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionBody } from '../../src/contract/schemas/inference.js';
import { providersFromConfig } from '../../server/providers/build.js';
import { toChatBody } from '../../server/services/inference/messages-translate.js';
import { countInputTokens, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import type { FakeOpenAI } from '../fixtures/fake-openai.js';
import { FAKE_ANTHROPIC_KEY, startFakeUpstreams } from '../helpers/upstreams.js';
import { API, expectChargedForProduced, expectApiError, expectStatus } from '../helpers/api.js';
import { pricedProvider, stallingAdapter } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The Anthropic Messages API front door, spoken to with the real @anthropic-ai/sdk, in front of
 * the local echo model, an OpenAI-compatible upstream (`acme/gpt-fake`), the Anthropic provider
 * (`anthropic/…`, from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, both pointing at the fake) and a
 * priced model (`paid/echo`) for metering.
 */
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let t: TestServer;

let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
beforeAll(async () => {
  upstreams = await startFakeUpstreams((urls) => [
    { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: [{ id: 'gpt-fake', input_price: 0.5, output_price: 1.5, context_length: 8192 }] },
  ]);
  ({ openai, anthropic } = upstreams);
  const env = { ...upstreams.env, ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropic.url };
  t = await startTestServer({ providers: [...providersFromConfig(env, upstreams.file), pricedProvider()] });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
});

const client = () => new Anthropic({ apiKey: t.liveKey, baseURL: `${t.url}/api`, maxRetries: 0 });
const textOf = (message: Anthropic.Message) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const ask = (model: string, content: string) => ({ model, max_tokens: 200, messages: [{ role: 'user' as const, content }] });

/** Every event type of a raw stream, in order, and the text its deltas carry. */
async function rawStream(params: Anthropic.MessageCreateParamsNonStreaming) {
  const stream = await client().messages.create({ ...params, stream: true });
  const types: string[] = [];
  let text = '';
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  return { types, text };
}

describe('messages.create and messages.stream on every kind of model', () => {
  it('local/echo: a message with text, end_turn, usage and our model id', async () => {
    const message = await client().messages.create({ ...ask('local/echo', 'hello messages'), system: 'be brief' });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'local/echo', stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(textOf(message)).toContain('hello messages');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('local/echo: streams Anthropic’s events in order, and finalMessage has the text and the real usage', async () => {
    const { types, text } = await rawStream(ask('local/echo', 'stream these words'));
    expect(types[0]).toBe('message_start');
    expect(types[1]).toBe('content_block_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(types.filter((type) => type === 'content_block_delta').length).toBeGreaterThan(1);
    expect(text).toContain('stream these words');

    const stream = client().messages.stream(ask('local/echo', 'stream with the helper'));
    let streamed = '';
    stream.on('text', (delta) => (streamed += delta));
    const final = await stream.finalMessage();
    expect(textOf(final)).toBe(streamed);
    expect(streamed).toContain('stream with the helper');
    expect(final.stop_reason).toBe('end_turn');
    // Input tokens come with message_delta (usage is known at the end of a chat stream).
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('an OpenAI-compatible upstream: system and messages reach it as chat, streamed with usage asked for', async () => {
    const message = await client().messages.create({ ...ask('acme/gpt-fake', 'hello acme'), system: [{ type: 'text', text: 'be brief' }] });
    expect(textOf(message)).toBe('You said: hello acme');
    expect(message.model).toBe('acme/gpt-fake');
    expect(openai.requests.at(-1)?.body).toMatchObject({
      model: 'gpt-fake',
      max_tokens: 200,
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello acme' }],
    });

    const final = await client().messages.stream(ask('acme/gpt-fake', 'stream acme')).finalMessage();
    expect(textOf(final)).toBe('You said: stream acme');
    expect(openai.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    // The fake's own count (a token a word: "You said: stream acme"), carried by message_delta.
    expect(final.usage.output_tokens).toBe(4);
  });

  it('the Anthropic provider, by a bare model name: claude-haiku-4-5 is anthropic/claude-haiku-4-5', async () => {
    const message = await client().messages.create({ ...ask('claude-haiku-4-5', 'hello claude'), system: 'be brief' });
    expect(message.model).toBe('anthropic/claude-haiku-4-5');
    expect(textOf(message)).toBe('You said: hello claude');
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ model: 'claude-haiku-4-5', system: 'be brief', max_tokens: 200 });

    const final = await client().messages.stream(ask('claude-haiku-4-5', 'stream claude')).finalMessage();
    expect(textOf(final)).toBe('You said: stream claude');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('accepts a bearer token as Claude Code sends ANTHROPIC_AUTH_TOKEN, and ?beta=true', async () => {
    const bearer = new Anthropic({ apiKey: null, authToken: t.liveKey, baseURL: `${t.url}/api`, maxRetries: 0 });
    expect(textOf(await bearer.messages.create(ask('local/echo', 'by bearer')))).toContain('by bearer');
    const beta = await t.call('POST', `${API}/messages?beta=true`, { body: ask('local/echo', 'beta') });
    expectStatus(beta, 200);
  });

  it('a model name that is nowhere says how a bare name was read', async () => {
    const answer = await t.call('POST', `${API}/messages`, { body: ask('claude-nope', 'x') });
    expectApiError(answer, 404, { code: 'model_not_found', param: 'model' });
    expect(answer.body.error.message).toContain("'claude-nope' is 'anthropic/claude-nope'");
  });
});

describe('tools', () => {
  const weather: Anthropic.Tool = {
    name: 'get_weather',
    description: 'The weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } } },
  };
  const question = 'What is the weather?\n!tool get_weather {"city":"Oslo"}';

  it('local/echo: a tool_use block out, a tool_result back in, an answer with the result', async () => {
    const first = await client().messages.create({ ...ask('local/echo', question), tools: [weather] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Oslo' } });
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');

    const second = await client().messages.create({
      model: 'local/echo',
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'sunny in Oslo' }] }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(textOf(second)).toContain('get_weather');
    expect(textOf(second)).toContain('sunny in Oslo');
  });

  it('local/echo streamed: the tool input arrives as input_json_delta fragments and adds up', async () => {
    const stream = client().messages.stream({ ...ask('local/echo', question), tools: [weather], tool_choice: { type: 'auto' } });
    const fragments: string[] = [];
    stream.on('inputJson', (partial) => fragments.push(partial));
    const final = await stream.finalMessage();
    expect(fragments.length).toBeGreaterThan(1);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Oslo' } })]);
  });

  it('the Anthropic upstream: the round trip goes through both translations and back', async () => {
    const lookup: Anthropic.Tool = { name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };
    const first = await client().messages.create({ ...ask('anthropic/claude-haiku-4-5', 'use lookup {"q":"svc"}'), tools: [lookup] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('no tool_use block');
    expect(use.input).toEqual({ q: 'svc' });

    const second = await client()
      .messages.stream({
        model: 'anthropic/claude-haiku-4-5',
        max_tokens: 200,
        tools: [lookup],
        messages: [
          { role: 'user', content: 'use lookup {"q":"svc"}' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'found svc' }] },
        ],
      })
      .finalMessage();
    expect(textOf(second)).toBe('The tool returned: found svc');
    // Upstream, the tool_use id made it back unchanged.
    expect(JSON.stringify(anthropic.requests.at(-1)?.body)).toContain(use.id);
  });

  it('tool_choice any is required, tool names one; a choice without tools or of a tool not offered is a 400', async () => {
    const forced = await client().messages.create({
      ...ask('acme/gpt-fake', 'call get_weather {"city":"Rome"}'),
      tools: [weather],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    expect(forced.content).toEqual([expect.objectContaining({ type: 'tool_use', input: { city: 'Rome' } })]);
    expect(openai.requests.at(-1)?.body).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather.input_schema } }],
    });

    const none = await t.call('POST', `${API}/messages`, { body: { ...ask('local/echo', 'x'), tool_choice: { type: 'any' } } });
    expectApiError(none, 400, { param: 'tool_choice' });
    const other = await t.call('POST', `${API}/messages`, { body: { ...ask('local/echo', 'x'), tools: [weather], tool_choice: { type: 'tool', name: 'nope' } } });
    expectApiError(other, 400, { param: 'tool_choice.name' });
  });
});

describe('requests', () => {
  it('translates images, documents, errors from tools and the rest into a valid chat body', () => {
    const body = toChatBody(
      {
        model: 'x',
        max_tokens: 10,
        temperature: 0.5,
        top_p: 0.9,
        stop_sequences: ['END'],
        metadata: { user_id: 'user-1' },
        stream: true,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look', cache_control: { type: 'ephemeral' } },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 'toolu_1', name: 'run', input: { a: 1 } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }, { type: 'text', text: 'and?' }] },
        ],
      },
      'local/echo',
    );
    expect(ChatCompletionBody.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      model: 'local/echo',
      max_tokens: 10,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      user: 'user-1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
        { role: 'assistant', content: 'ok', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'run', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: boom' },
        { role: 'user', content: [{ type: 'text', text: 'and?' }] },
      ],
    });
  });

  it('takes top_k, thinking and output_config as Anthropic does; refuses by name what the chat format cannot carry, and every unknown or bad field', async () => {
    // This SDK no longer declares the sampling fields; Anthropic's API still takes them.
    const accepted = await client().messages.create({
      ...ask('local/echo', 'x'),
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { effort: 'high' },
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(accepted.stop_reason).toBe('end_turn');
    const refusals: [Record<string, unknown>, string, string | null][] = [
      [{ context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }, 'context_management', 'unsupported_parameter'],
      [{ stop_sequences: ['a', 'b', 'c', 'd', 'e'] }, 'stop_sequences', null],
      [{ output_config: { task_budget: { type: 'tokens', total: 1000 } } }, 'output_config.task_budget', 'unknown_field'],
      [{ thinking: { type: 'enabled' } }, 'thinking.budget_tokens', 'missing_field'],
      [{ max_tokens: undefined }, 'max_tokens', 'missing_field'],
      [{ temperature: 1.5 }, 'temperature', null],
      [{ model: 'Bad Model' }, 'model', null],
      [
        { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'url', url: 'https://e.com/a.png' } }] }] }] },
        'messages[0].content[0].content[0]',
        'unsupported_parameter',
      ],
      [{ messages: [{ role: 'user', content: [{ type: 'thinking', thinking: 'hm' }] }] }, 'messages[0].content', null],
      [{ messages: [{ role: 'user', content: [] }] }, 'messages[0].content', null],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', foo: 1 }] }] }, 'messages[0].content[0].foo', 'unknown_field'],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', citations: [{}] }] }] }, 'messages[0].content', null],
    ];
    for (const [extra, param, code] of refusals) {
      const answer = await t.call('POST', `${API}/messages`, { body: { ...ask('local/echo', 'x'), ...extra } });
      expectApiError(answer, 400, { type: 'invalid_request_error', param, ...(code ? { code } : {}) });
    }
    const refused = await t.call('POST', `${API}/messages`, { body: { ...ask('local/echo', 'x'), context_management: { edits: [] } } });
    expect(refused.body.error.message).toContain("'context_management' is not supported for local/echo");
    const badBlock = await t.call('POST', `${API}/messages`, { body: { ...ask('local/echo', 'x'), messages: [{ role: 'user', content: [{ type: 'thinking' }] }] } });
    expect(badBlock.body.error.message).toContain("the block at [0].type: Invalid discriminator value. Expected 'text' | 'image' | 'document' | 'tool_result'");
    // Disabled thinking and a caching hint are fine.
    const fine = await t.call('POST', `${API}/messages`, {
      body: { ...ask('local/echo', 'x'), thinking: { type: 'disabled' }, cache_control: { type: 'ephemeral' } },
    });
    expectStatus(fine, 200);
  });

  it('an error in the middle of an upstream stream ends it with event: error, which the SDK throws', async () => {
    anthropic.script({ kind: 'stream_error', afterDeltas: 1 });
    const response = await fetch(`${t.url}${API}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.liveKey },
      body: JSON.stringify({ ...ask('claude-haiku-4-5', 'a stream that breaks off here'), stream: true }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events[0]).toMatch(/^event: message_start\n/);
    const last = events.at(-1)!;
    expect(last).toMatch(/^event: error\n/);
    // Relayed as the upstream sent it (the fake's default mid-stream error is overloaded_error).
    expect(JSON.parse(last.split('\ndata: ')[1]!)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(events.some((event) => event.startsWith('event: message_stop'))).toBe(false);

    anthropic.script({ kind: 'stream_error', afterDeltas: 1 });
    await expect(client().messages.stream(ask('claude-haiku-4-5', 'a stream that breaks off here')).finalMessage()).rejects.toThrow(/overloaded_error/);
    expect((await t.call('GET', `${API}/credits/balance`)).body.held_credits).toBe(0);
  });
});

describe('count_tokens', () => {
  it('answers the estimate the gateway holds credits for on a translated model, the upstream’s own count on an Anthropic one', async () => {
    const params = { model: 'local/echo', system: 'be brief', messages: [{ role: 'user' as const, content: 'count my tokens' }] };
    const { input_tokens } = await client().messages.countTokens(params);
    expect(input_tokens).toBeGreaterThan(0);
    // The echo model counts text input the same way.
    const message = await client().messages.create({ ...params, max_tokens: 50 });
    expect(message.usage.input_tokens).toBe(input_tokens);

    const before = anthropic.requests.length;
    const bare = await client().messages.countTokens({ ...params, model: 'claude-haiku-4-5' });
    expect(anthropic.requests.length).toBe(before + 1);
    expect(anthropic.requests.at(-1)).toMatchObject({ path: expect.stringMatching(/^\/v1\/messages\/count_tokens/), body: { ...params, model: 'claude-haiku-4-5' } });
    expect(bare.input_tokens).toBe(countInputTokens(params));

    const refused = await t.call('POST', `${API}/messages/count_tokens`, { body: { ...params, max_tokens: 10 } });
    expectApiError(refused, 400, { param: 'max_tokens', code: 'unknown_field' });
  });
});

describe('metering', () => {
  const usageOf = async () => {
    const rows = await t.server.store.usage.byModel({ appUuid: t.appUuid, livemode: true, start: '2000-01-01T00:00:00.000Z', end: '2100-01-01T00:00:00.000Z' });
    const row = rows.find((r) => r.provider === 'paid' && r.model === 'echo');
    return row ?? { requests: 0, inputTokens: 0, outputTokens: 0, chargedMicro: 0 };
  };
  const credits = async () => Math.round((await t.call('GET', `${API}/credits/balance`)).body.credits * 1e6);

  /** What one request adds: credits charged, and the usage row's tokens. */
  async function measure(request: () => Promise<unknown>) {
    const [before, usageBefore] = [await credits(), await usageOf()];
    await request();
    const [after, usageAfter] = [await credits(), await usageOf()];
    return {
      charged: before - after,
      requests: usageAfter.requests - usageBefore.requests,
      input: usageAfter.inputTokens - usageBefore.inputTokens,
      output: usageAfter.outputTokens - usageBefore.outputTokens,
      chargedMicro: usageAfter.chargedMicro - usageBefore.chargedMicro,
    };
  }

  it('the same prompt through /chat/completions and /messages charges the same and writes the same usage row', async () => {
    const prompt = 'meter me the same way';
    const viaChat = await measure(async () =>
      expectStatus(
        await t.call('POST', `${API}/chat/completions`, {
          body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: prompt }] },
        }),
        200,
      ),
    );
    const viaMessages = await measure(() => client().messages.create({ ...ask('paid/echo', prompt), max_tokens: 20, system: 'be brief' }));
    expect(viaChat.requests).toBe(1);
    expect(viaChat.charged).toBeGreaterThan(0);
    expect(viaMessages).toEqual(viaChat);

    const streamedChat = await measure(async () => {
      const response = await t.call('POST', `${API}/chat/completions`, {
        body: { model: 'paid/echo', max_tokens: 20, stream: true, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: prompt }] },
      });
      expectStatus(response, 200);
    });
    const streamedMessages = await measure(() =>
      client().messages.stream({ ...ask('paid/echo', prompt), max_tokens: 20, system: 'be brief' }).finalMessage(),
    );
    expect(streamedMessages).toEqual(streamedChat);
    expect(streamedMessages).toEqual(viaChat);
    expect((await t.call('GET', `${API}/credits/balance`)).body.held_credits).toBe(0);
  });

  it('a client that goes away mid-stream aborts the upstream and pays only for what was produced', async () => {
    const adapter = stallingAdapter(['one ', 'two ', 'three ']);
    const server = await startTestServer({ providers: [pricedProvider(adapter)] });
    try {
      const aborter = new AbortController();
      const response = await fetch(`${server.url}${API}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.liveKey },
        body: JSON.stringify({ ...ask('paid/echo', 'go'), max_tokens: 50, stream: true }),
        signal: aborter.signal,
      });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('three')) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toContain('event: content_block_delta');
      aborter.abort();
      await adapter.aborted;
      await expectChargedForProduced(server, { model: 'paid/echo', output_tokens: 4 });
    } finally {
      await server.close();
    }
  });

  it('a request the balance cannot hold is a 402 before anything streams', async () => {
    const answer = await t.call('POST', `${API}/messages`, { body: { ...ask('paid/echo', 'too much'), max_tokens: 100_000, stream: true } });
    expectApiError(answer, 402, { type: 'insufficient_credits' });
  });
});
