import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { generateObject } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { promptTokensOf, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { runWeatherTool } from '../helpers/ai-sdk.js';
import { API, expectApiError, expectStatus } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/**
 * `/messages` translated to chat completions for an OpenAI-type upstream, spoken to with the
 * clients people use — @anthropic-ai/sdk, LangChain's ChatAnthropic, the AI SDK's
 * @ai-sdk/anthropic — in front of the fake OpenAI upstream: `acme/gpt-fake` (no reasoning
 * controls), `acme/o4-mini` (an OpenAI reasoning model: takes reasoning_effort, shows no
 * reasoning) and `acme/deepseek-reasoner` (shows its reasoning as `reasoning_content`).
 */
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
let openai: FakeOpenAI;
let t: TestServer;

beforeAll(async () => {
  const model = (id: string) => ({ id, input_price: 0.5, output_price: 1.5, context_length: 200_000 });
  upstreams = await startFakeUpstreams((urls) => [
    { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: ['gpt-fake', 'o4-mini', 'deepseek-reasoner'].map(model) },
  ]);
  ({ openai } = upstreams);
  t = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
});

const client = () => new Anthropic({ apiKey: t.liveKey, baseURL: `${t.url}/api`, maxRetries: 0 });
const ask = (model: string, content: string) => ({ model, max_tokens: 200, messages: [{ role: 'user' as const, content }] });
const textOf = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
/** What the upstream was last sent. */
const upstreamBody = () => openai.requests.at(-1)?.body as Record<string, unknown>;

/** Every event of a raw stream, parsed. */
async function rawEvents(params: Anthropic.MessageCreateParamsNonStreaming) {
  const events: Anthropic.RawMessageStreamEvent[] = [];
  for await (const event of await client().messages.create({ ...params, stream: true })) events.push(event);
  return events;
}

describe('thinking', () => {
  it('on a reasoning model, thinking is its reasoning_effort, and max_tokens its max_completion_tokens', async () => {
    const cases: [Partial<Anthropic.MessageCreateParamsNonStreaming>, string | undefined][] = [
      [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, 'low'],
      [{ thinking: { type: 'enabled', budget_tokens: 4000 } }, 'medium'],
      [{ thinking: { type: 'enabled', budget_tokens: 10_000 } }, 'high'],
      [{ thinking: { type: 'disabled' } }, 'low'],
      [{ thinking: { type: 'adaptive' } }, undefined],
      [{ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }, 'xhigh'],
      [{ output_config: { effort: 'medium' } }, 'medium'],
      [{}, undefined],
    ];
    for (const [extra, effort] of cases) {
      const message = await client().messages.create({ ...ask('acme/o4-mini', 'think it over'), ...extra });
      expect(textOf(message)).toBe('You said: think it over');
      const body = upstreamBody();
      expect(body.reasoning_effort).toBe(effort);
      expect(body.max_completion_tokens).toBe(200);
      expect(body.max_tokens).toBeUndefined();
    }
  });

  it('on a model without reasoning controls, thinking is accepted and has no effect', async () => {
    const message = await client().messages.create({ ...ask('acme/gpt-fake', 'no thinking here'), thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(message.content).toEqual([{ type: 'text', text: 'You said: no thinking here' }]);
    expect(upstreamBody().reasoning_effort).toBeUndefined();
    expect(upstreamBody().max_tokens).toBe(200);
  });

  it('reasoning the upstream shows comes back as a thinking block, not streamed and streamed', async () => {
    const message = await client().messages.create({ ...ask('acme/deepseek-reasoner', 'why is the sky blue'), thinking: { type: 'adaptive' } });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Thinking about: why is the sky blue', signature: '' },
      { type: 'text', text: 'You said: why is the sky blue' },
    ]);

    const stream = client().messages.stream(ask('acme/deepseek-reasoner', 'stream your thoughts'));
    let thought = '';
    stream.on('thinking', (delta) => (thought += delta));
    const final = await stream.finalMessage();
    expect(thought).toBe('Thinking about: stream your thoughts');
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'Thinking about: stream your thoughts', signature: '' },
      { type: 'text', text: 'You said: stream your thoughts' },
    ]);
    const events = await rawEvents(ask('acme/deepseek-reasoner', 'blocks in order'));
    const starts = events.flatMap((event) => (event.type === 'content_block_start' ? [[event.index, event.content_block.type]] : []));
    expect(starts).toEqual([
      [0, 'thinking'],
      [1, 'text'],
    ]);
  });

  it('thinking blocks sent back in a later turn are accepted and left out of the chat messages', async () => {
    const first = await client().messages.create(ask('acme/deepseek-reasoner', 'first question'));
    const second = await client().messages.create({
      model: 'acme/deepseek-reasoner',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [...first.content, { type: 'redacted_thinking', data: 'opaque' }] },
        { role: 'user', content: 'second question' },
      ],
    });
    expect(textOf(second)).toBe('You said: second question');
    expect(upstreamBody().messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'You said: first question' },
      { role: 'user', content: 'second question' },
    ]);
  });
});

describe('sampling and stopping', () => {
  it('top_k arrives upstream as top_k', async () => {
    // This SDK no longer declares the sampling fields; Anthropic's API still takes them.
    await client().messages.create({ ...ask('acme/gpt-fake', 'sample narrowly'), top_k: 5, top_p: 0.9 } as Anthropic.MessageCreateParamsNonStreaming);
    expect(upstreamBody()).toMatchObject({ top_k: 5, top_p: 0.9 });
  });

  it('a matched stop sequence comes back as stop_sequence with the string, streamed and not', async () => {
    const params = { ...ask('acme/gpt-fake', 'one two three four'), stop_sequences: ['nine', 'three'] };
    const message = await client().messages.create(params);
    expect(upstreamBody().stop).toEqual(['nine', 'three']);
    expect(textOf(message)).toBe('You said: one two ');
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'three' });

    const final = await client().messages.stream(params).finalMessage();
    expect(textOf(final)).toBe('You said: one two ');
    expect(final).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'three' });

    // A stop sequence that never comes: the answer ends as it would have.
    const unmatched = await client().messages.create({ ...params, stop_sequences: ['nine'] });
    expect(unmatched).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('more than 4 stop sequences do not fit the chat format: a 400 that names them', async () => {
    const answer = await t.call('POST', `${API}/messages`, { body: { ...ask('acme/gpt-fake', 'x'), stop_sequences: ['a', 'b', 'c', 'd', 'e'] } });
    expectApiError(answer, 400, { param: 'stop_sequences' });
    expect(answer.body.error.message).toContain('at most 4 stop sequences fit the chat format');
  });
});

describe('usage', () => {
  const cachedAsk = (topic: string) => ({
    ...ask('acme/gpt-fake', 'and now?'),
    // Long enough for the upstream to cache (OpenAI caches prompts from 1,024 tokens).
    system: [{ type: 'text' as const, text: `About ${topic}. ${'Be brief. '.repeat(600)}`, cache_control: { type: 'ephemeral' as const } }],
  });
  /** The prompt tokens the fake counted for the last request, as OpenAI counts them. */
  const upstreamPromptTokens = () => promptTokensOf(upstreamBody().model, upstreamBody().messages, upstreamBody().tools);

  it('the upstream’s cached tokens are cache_read_input_tokens, left out of input_tokens; no cache writes; integers, never null', async () => {
    const first = await client().messages.create(cachedAsk('not streamed'));
    expect(first.usage).toMatchObject({ input_tokens: upstreamPromptTokens(), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });

    const second = await client().messages.create(cachedAsk('not streamed'));
    const cached = second.usage.cache_read_input_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(second.usage.input_tokens + cached).toBe(upstreamPromptTokens());
    expect(second.usage.cache_creation_input_tokens).toBe(0);

    await client().messages.create(cachedAsk('streamed'));
    const streamed = await client().messages.stream(cachedAsk('streamed')).finalMessage();
    expect(streamed.usage.cache_read_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(streamed.usage.input_tokens + (streamed.usage.cache_read_input_tokens ?? 0)).toBe(upstreamPromptTokens());
    expect(streamed.usage.cache_creation_input_tokens).toBe(0);
  });

  it('message_start carries input tokens before the upstream has counted (the bound credits are held for); message_delta the count', async () => {
    const params = ask('acme/gpt-fake', 'how many tokens is this');
    const events = await rawEvents(params);
    const start = events[0];
    if (start?.type !== 'message_start') throw new Error(`the stream opened with ${start?.type}`);
    // The same bound count_tokens answers for a translated model.
    const { input_tokens: bound } = await client().messages.countTokens({ model: params.model, messages: params.messages });
    expect(bound).toBeGreaterThan(0);
    expect(start.message.usage).toMatchObject({ input_tokens: bound, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    const delta = events.find((event) => event.type === 'message_delta');
    expect(delta?.type === 'message_delta' && delta.usage.input_tokens).toBe(upstreamPromptTokens());
  });
});

describe('structured output and the newer fields', () => {
  const Answer = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'], additionalProperties: false };

  it('output_config.format is a json_schema response_format; the answer is JSON that fits', async () => {
    const message = await client().messages.create({ ...ask('acme/gpt-fake', 'Oslo'), output_config: { format: { type: 'json_schema', schema: Answer } } });
    expect(upstreamBody().response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: Answer } });
    const parsed = JSON.parse(textOf(message)) as { city: string; days: number };
    expect(parsed.city).toContain('Oslo');
    expect(typeof parsed.days).toBe('number');
  });

  it('service_tier is passed on; eager_input_streaming is a hint; context_management is refused by name', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'lookup', input_schema: { type: 'object' }, eager_input_streaming: true }];
    await client().messages.create({ ...ask('acme/gpt-fake', 'hello tiers'), service_tier: 'standard_only', tools });
    expect(upstreamBody()).toMatchObject({ service_tier: 'default', tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] });
    await client().messages.create({ ...ask('acme/gpt-fake', 'hello tiers'), service_tier: 'auto' });
    expect(upstreamBody().service_tier).toBe('auto');

    const before = openai.requests.length;
    const refused = await t.call('POST', `${API}/messages`, { body: { ...ask('acme/gpt-fake', 'x'), context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } } });
    expectApiError(refused, 400, { type: 'invalid_request_error', param: 'context_management', code: 'unsupported_parameter' });
    expect(openai.requests.length).toBe(before);
  });
});

describe('other clients', () => {
  it('LangChain ChatAnthropic, streamed: usage_metadata has the input tokens (it reads them from message_start)', async () => {
    const chat = new ChatAnthropic({ model: 'acme/gpt-fake', apiKey: t.liveKey, anthropicApiUrl: `${t.url}/api`, maxRetries: 0 });
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream('hello langchain')) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole?.content).toBe('You said: hello langchain');
    expect(whole?.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(whole?.usage_metadata?.output_tokens).toBe(4);
  });

  const anthropicProvider = () => createAnthropic({ apiKey: t.liveKey, baseURL: `${t.url}${API}` });
  const Weather = z.object({ city: z.string(), days: z.number().int() });

  it('@ai-sdk/anthropic generateObject: through a forced tool (its default) and through output_config.format', async () => {
    const viaTool = await generateObject({ model: anthropicProvider()('acme/gpt-fake'), schema: Weather, prompt: 'Bergen', maxRetries: 0 });
    expect(Weather.parse(viaTool.object).city).toContain('Bergen');
    // Its tool_choice any is the chat format's required; the only tool is its answer tool.
    expect(upstreamBody()).toMatchObject({ tool_choice: 'required', tools: [{ type: 'function', function: { name: 'json' } }] });

    const viaFormat = await generateObject({
      model: anthropicProvider()('acme/gpt-fake'),
      schema: Weather,
      prompt: 'Tromsø',
      maxRetries: 0,
      providerOptions: { anthropic: { structuredOutputMode: 'outputFormat' } },
    });
    expect(Weather.parse(viaFormat.object).city).toContain('Tromsø');
    expect(upstreamBody().response_format).toMatchObject({ type: 'json_schema' });
  });

  it('@ai-sdk/anthropic streamText with a tool: the call streams, runs, and the answer uses its result', async () => {
    const { calls, text, usage } = await runWeatherTool(anthropicProvider()('acme/gpt-fake'), 'call get_weather {"city":"Oslo"}');
    expect(calls).toEqual([{ city: 'Oslo' }]);
    expect(text).toBe('The tool returned: sunny');
    expect(usage.inputTokens).toBeGreaterThan(0);
  });
});

describe('refusals stay 4xx', () => {
  it('a bad thinking config or output_config names the field', async () => {
    for (const [extra, param] of [
      [{ thinking: { type: 'sometimes' } }, 'thinking.type'],
      [{ output_config: { effort: 'extreme' } }, 'output_config.effort'],
      [{ output_config: { format: { type: 'xml' } } }, 'output_config.format.type'],
    ] as const) {
      const answer = await t.call('POST', `${API}/messages`, { body: { ...ask('acme/gpt-fake', 'x'), ...extra } });
      expectApiError(answer, 400, { type: 'invalid_request_error', param });
    }
    expectStatus(await t.call('POST', `${API}/messages`, { body: { ...ask('acme/gpt-fake', 'x'), thinking: { type: 'enabled', budget_tokens: 1024, display: 'omitted' } } }), 200);
  });
});
