import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FakeAnthropic } from '../fixtures/fake-anthropic.js';
import type { FakeOpenAI } from '../fixtures/fake-openai.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';
import { API, expectApiError } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Client libraries nobody here wrote, unchanged, against the real server in front of each kind of
 * upstream: the offline local model, an OpenAI-type upstream with its own Responses API (`acme`),
 * one without it (`plain`, Responses translated to chat), and an Anthropic-type one (`claude`).
 */
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let t: TestServer;

beforeAll(async () => {
  const model = (id: string) => ({ id, input_price: 0.5, output_price: 1.5, context_length: 8192 });
  upstreams = await startFakeUpstreams((urls) => [
    // More than a page of models: a list without page_size must still have them all.
    { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', supports_responses: true, models: [model('gpt-fake'), ...Array.from({ length: 110 }, (_, i) => model(`extra-${String(i).padStart(3, '0')}`))] },
    { id: 'plain', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: [model('gpt-fake')] },
    { id: 'claude', type: 'anthropic', base_url: urls.anthropic, api_key_env: 'FAKE_ANTHROPIC_KEY', models: [model('claude-fake')] },
  ]);
  ({ openai, anthropic } = upstreams);
  t = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
});

const sdk = () => new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
const Weather = z.object({ city: z.string(), days: z.number().int(), sunny: z.boolean() });
const CHAT_MODELS = ['local/echo', 'acme/gpt-fake', 'plain/gpt-fake', 'claude/claude-fake'];

describe('structured output on every provider', () => {
  for (const model of CHAT_MODELS) {
    it(`openai-node chat.completions.parse with a zod schema: ${model}`, async () => {
      const completion = await sdk().chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'Oslo' }],
        response_format: zodResponseFormat(Weather, 'weather'),
      });
      const parsed = completion.choices[0]?.message.parsed;
      expect(Weather.safeParse(parsed).success).toBe(true);
      expect(parsed?.city).toContain('Oslo');
    });

    it(`openai-node responses.parse with a zod text format: ${model}`, async () => {
      const response = await sdk().responses.parse({ model, input: 'Bergen', text: { format: zodTextFormat(Weather, 'weather') } });
      expect(Weather.safeParse(response.output_parsed).success).toBe(true);
      expect(response.output_parsed?.city).toContain('Bergen');
    });

    it(`LangChain withStructuredOutput: ${model}`, async () => {
      const chat = new ChatOpenAI({ model, apiKey: t.liveKey, configuration: { baseURL: `${t.url}${API}` }, maxRetries: 0 });
      const result = await chat.withStructuredOutput(Weather).invoke('Tromsø');
      expect(Weather.safeParse(result).success).toBe(true);
    });

    it(`the AI SDK's generateObject, through the Responses API (@ai-sdk/openai) and chat (openai-compatible): ${model}`, async () => {
      const responses = createOpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}` });
      const viaResponses = await generateObject({ model: responses.responses(model), schema: Weather, prompt: 'Stavanger', maxRetries: 0 });
      expect(Weather.safeParse(viaResponses.object).success).toBe(true);
      const compatible = createOpenAICompatible({ name: 'svc', apiKey: t.liveKey, baseURL: `${t.url}${API}`, supportsStructuredOutputs: true });
      const viaChat = await generateObject({ model: compatible.chatModel(model), schema: Weather, prompt: 'Bodø', maxRetries: 0 });
      expect(Weather.safeParse(viaChat.object).success).toBe(true);
    });
  }

  it('streams a structured answer from an Anthropic model as JSON text', async () => {
    const stream = await sdk().chat.completions.create({
      model: 'claude/claude-fake',
      messages: [{ role: 'user', content: 'Narvik' }],
      response_format: zodResponseFormat(Weather, 'weather'),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(Weather.parse(JSON.parse(text)).city).toContain('Narvik');
  });
});

describe("today's OpenAI fields", () => {
  it('known new fields are validated, and unknown ones reach an OpenAI-type upstream unchanged', async () => {
    await sdk().chat.completions.create({
      model: 'plain/gpt-fake',
      messages: [{ role: 'user', content: 'hi' }],
      service_tier: 'auto',
      prompt_cache_key: 'cache-1',
      safety_identifier: 'user-1',
      verbosity: 'low',
      reasoning_effort: 'none',
      // @ts-expect-error a field no SDK types yet: the upstream is its judge
      brand_new_field: { on: true },
    });
    const sent = openai.requests.findLast((r) => r.path === '/v1/chat/completions')?.body;
    expect(sent).toMatchObject({ service_tier: 'auto', prompt_cache_key: 'cache-1', safety_identifier: 'user-1', verbosity: 'low', reasoning_effort: 'none', brand_new_field: { on: true } });
    const wrong = await t.call('POST', `${API}/chat/completions`, { body: { model: 'plain/gpt-fake', messages: [{ role: 'user', content: 'x' }], verbosity: 'loud' } });
    expectApiError(wrong, 400, { param: 'verbosity' });
  });

  it('a translated provider refuses by name what it cannot honour, never dropping it', async () => {
    const body = (extra: Record<string, unknown>) => ({ model: 'claude/claude-fake', messages: [{ role: 'user', content: 'x' }], ...extra });
    expectApiError(await t.call('POST', `${API}/chat/completions`, { body: body({ brand_new_field: 1 }) }), 400, { param: 'brand_new_field', code: 'unsupported_parameter' });
    expectApiError(await t.call('POST', `${API}/chat/completions`, { body: body({ n: 2 }) }), 400, { param: 'n' });
    expectApiError(await t.call('POST', `${API}/chat/completions`, { body: body({ logit_bias: { '1': 2 } }) }), 400, { param: 'logit_bias' });
    const responses = await t.call('POST', `${API}/responses`, { body: { model: 'plain/gpt-fake', input: 'x', max_tool_calls: 2 } });
    expectApiError(responses, 400, { param: 'max_tool_calls', code: 'unsupported_parameter' });
  });

  it('n > 1 reaches an upstream that supports it', async () => {
    await sdk().chat.completions.create({ model: 'plain/gpt-fake', messages: [{ role: 'user', content: 'hi' }], n: 2 });
    expect(openai.requests.findLast((r) => r.path === '/v1/chat/completions')?.body.n).toBe(2);
  });

  it("an upstream's 400 keeps its param and code", async () => {
    openai.script({ kind: 'respond', status: 400, body: { error: { message: 'Invalid value for temperature.', type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } } });
    const refused = await t.call('POST', `${API}/chat/completions`, { body: { model: 'plain/gpt-fake', messages: [{ role: 'user', content: 'x' }] } });
    expectApiError(refused, 400, { param: 'temperature', code: 'invalid_value' });
  });
});

describe("OpenAI's rate-limit headers, as the SDK hands them over", () => {
  it('chat completions and responses say where the caller stands in x-ratelimit-*-requests and -tokens, resets as durations', async () => {
    const chat = await sdk().chat.completions.create({ model: 'plain/gpt-fake', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const responses = await sdk().responses.create({ model: 'acme/gpt-fake', input: 'hi' }).withResponse();
    for (const { response } of [chat, responses]) {
      const limit = Number(response.headers.get('x-ratelimit-limit-requests'));
      expect(limit).toBeGreaterThan(0);
      expect(Number(response.headers.get('x-ratelimit-remaining-requests'))).toBeLessThan(limit);
      expect(Number(response.headers.get('x-ratelimit-limit-tokens'))).toBeGreaterThan(0);
      expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
      expect(response.headers.get('x-ratelimit-reset-tokens')).toMatch(/^\d+s$/);
      expect([...response.headers.keys()].filter((name) => name.startsWith('anthropic-'))).toEqual([]);
    }
  });
});

describe('model lookups', () => {
  it('models.retrieve finds a provider/model id, its slash raw or encoded; an unknown one is a 404', async () => {
    expect((await sdk().models.retrieve('acme/gpt-fake')).id).toBe('acme/gpt-fake');
    expect((await t.call('GET', `${API}/models/acme/gpt-fake`)).body.id).toBe('acme/gpt-fake');
    expect((await t.call('GET', `${API}/models/acme%2Fgpt-fake`)).body.id).toBe('acme/gpt-fake');
    expectApiError(await t.call('GET', `${API}/models/acme/nothing`), 404, { code: 'model_not_found' });
  });

  it('models.list gives every model, more than a page of them; paging stays for those who ask', async () => {
    const all: string[] = [];
    for await (const model of sdk().models.list()) all.push(model.id);
    expect(all.length).toBeGreaterThan(110);
    expect(all).toContain('acme/extra-109');
    const page = await t.call('GET', `${API}/models?page_size=50`);
    expect(page.body.data).toHaveLength(50);
    expect(page.body.next_page_token).toEqual(expect.any(String));
  });
});

describe('conversation state', () => {
  for (const model of CHAT_MODELS) {
    it(`previous_response_id continues the conversation: ${model}`, async () => {
      const first = await sdk().responses.create({ model, input: 'my name is Ada', store: true });
      const second = await sdk().responses.create({ model, input: 'what did I say?', previous_response_id: first.id });
      expect(second.status).toBe('completed');
      const items = await sdk().responses.inputItems.list(second.id);
      const texts = JSON.stringify(items.data);
      expect(texts).toContain('my name is Ada');
      expect(texts).toContain('what did I say?');
      if (model === 'acme/gpt-fake') {
        // A native upstream gets its own id for the previous response, never ours.
        const sent = openai.requests.findLast((r) => r.path === '/v1/responses')?.body;
        expect(sent.previous_response_id).toMatch(/^resp_/);
        expect(sent.previous_response_id).not.toBe(first.id);
      } else if (model !== 'local/echo') {
        // A translated one gets the whole conversation again.
        const upstream = model.startsWith('claude') ? anthropic.requests : openai.requests;
        expect(JSON.stringify(upstream.at(-1)?.body)).toContain('my name is Ada');
      }
    });
  }

  it('an unknown previous_response_id is a 404 naming it', async () => {
    const refused = await t.call('POST', `${API}/responses`, { body: { model: 'local/echo', input: 'x', previous_response_id: 'resp_doesnotexist' } });
    expectApiError(refused, 404, { param: 'previous_response_id' });
  });

  for (const model of ['local/echo', 'plain/gpt-fake', 'claude/claude-fake']) {
    it(`the AI SDK's Responses provider runs a multi-step tool loop (item references included): ${model}`, async () => {
      const responses = createOpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}` });
      const calls: unknown[] = [];
      const line = model === 'local/echo' ? '!tool get_weather {"city":"Oslo"}' : model.startsWith('claude') ? 'use get_weather {"city":"Oslo"}' : 'call get_weather {"city":"Oslo"}';
      const result = await generateText({
        model: responses.responses(model),
        prompt: line,
        tools: {
          get_weather: tool({
            description: 'The weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              calls.push(city);
              return `sunny in ${city}`;
            },
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      expect(calls).toEqual(['Oslo']);
      expect(result.steps.length).toBeGreaterThanOrEqual(2);
      expect(result.text).toContain('sunny in Oslo');
    });
  }
});

