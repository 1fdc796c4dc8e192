import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/**
 * OpenAI's usage details — `prompt_tokens_details.cached_tokens`,
 * `completion_tokens_details.reasoning_tokens` — through chat completions and the Responses API,
 * spoken to with the openai SDK in front of the fake OpenAI upstream (which reports them as
 * OpenAI does), and what they cost, to the micro-credit.
 *
 * Prices, in micro-credits a token (USD per million × 100): `acme/gpt-fake` 200 input, 50 cached
 * input, 800 output; `acme/o4-mini` (a reasoning model) 100 input, 25 cached input, 400 output,
 * 600 reasoning. `plain/…` are the same models on a provider without the Responses API.
 */
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
let openai: FakeOpenAI;
let t: TestServer;

const PRICES = {
  'gpt-fake': { input_price: 2, cached_input_price: 0.5, output_price: 8 },
  'o4-mini': { input_price: 1, cached_input_price: 0.25, output_price: 4, reasoning_price: 6 },
};
const MICRO = {
  'gpt-fake': { input: 200, cached: 50, output: 800, reasoning: 800 },
  'o4-mini': { input: 100, cached: 25, output: 400, reasoning: 600 },
};
const models = Object.entries(PRICES).map(([id, prices]) => ({ id, ...prices, context_length: 200_000, max_output_tokens: 100 }));

beforeAll(async () => {
  upstreams = await startFakeUpstreams((urls) => [
    { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', supports_responses: true, models },
    { id: 'plain', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models },
  ]);
  ({ openai } = upstreams);
  t = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
});

const sdk = () => new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });

/** A system prompt long enough to be cached (OpenAI caches from 1,024 tokens); each test its own. */
const longPrompt = (topic: string) => `You are an assistant for ${topic}. ${'Answer briefly and precisely. '.repeat(300)}`;

const credits = async () => Math.round((await t.call('GET', `${API}/credits/balance`)).body.credits * 1e6);
const chargedMicro = async () => {
  const rows = await t.server.store.usage.byModel({ appUuid: t.appUuid, livemode: true, start: '2000-01-01T00:00:00.000Z', end: '2100-01-01T00:00:00.000Z' });
  return rows.reduce((sum, row) => sum + row.chargedMicro, 0);
};

/** Runs `request` and returns what it charged: by the balance, and by the usage rows (the same, or the test fails). */
async function charged(request: () => Promise<unknown>): Promise<number> {
  const [before, rowsBefore] = [await credits(), await chargedMicro()];
  await request();
  const [after, rowsAfter] = [await credits(), await chargedMicro()];
  expect(rowsAfter - rowsBefore).toBe(before - after);
  return before - after;
}

type Usage = NonNullable<OpenAI.Chat.ChatCompletion['usage']>;

/** What `usage` costs on `model`: each kind of token at its price. */
function costOf(model: keyof typeof MICRO, usage: Usage): number {
  const price = MICRO[model];
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return (
    (usage.prompt_tokens - cached) * price.input +
    cached * price.cached +
    (usage.completion_tokens - reasoning) * price.output +
    reasoning * price.reasoning
  );
}

describe('chat completions: usage details pass through and are priced', () => {
  it('a prompt seen before comes back with cached_tokens, which cost the cached price', async () => {
    const ask = () =>
      sdk().chat.completions.create({
        model: 'acme/gpt-fake',
        messages: [
          { role: 'system', content: longPrompt('caching, not streamed') },
          { role: 'user', content: 'hello' },
        ],
      });
    const first = await ask();
    expect(first.usage?.prompt_tokens_details).toEqual({ cached_tokens: 0, audio_tokens: 0 });
    expect(first.usage?.completion_tokens_details).toMatchObject({ reasoning_tokens: 0 });

    let second: OpenAI.Chat.ChatCompletion | undefined;
    const cost = await charged(async () => (second = await ask()));
    const usage = second!.usage!;
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    // OpenAI's rule, as the fake keeps it: from 1,024 tokens, in steps of 128.
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThan(usage.prompt_tokens);
    expect(cost).toBe(costOf('gpt-fake', usage));
    // Cached input is a quarter of the price here: cheaper than the same prompt uncached.
    expect(cost).toBeLessThan(usage.prompt_tokens * MICRO['gpt-fake'].input + usage.completion_tokens * MICRO['gpt-fake'].output);
  });

  it('streamed with include_usage: the usage chunk carries the details, and the charge is the same rule', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: longPrompt('caching, streamed') },
      { role: 'user', content: 'stream please' },
    ];
    await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages });
    let usage: Usage | undefined;
    const cost = await charged(async () => {
      const stream = await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    });
    expect(usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(usage?.completion_tokens_details).toMatchObject({ reasoning_tokens: 0 });
    expect(cost).toBe(costOf('gpt-fake', usage!));
  });

  it('streamed without include_usage: the client sees no usage, and the cached tokens are priced all the same', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: longPrompt('caching, usage not asked for') },
      { role: 'user', content: 'quietly' },
    ];
    const seen = await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages });
    const cost = await charged(async () => {
      const stream = await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages, stream: true });
      for await (const chunk of stream) expect(chunk.usage ?? null).toBeNull();
    });
    // Upstream, usage was asked for all the same; the same prompt, seen once before, is cached the same.
    expect(openai.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    const again = await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages });
    expect(cost).toBe(costOf('gpt-fake', again.usage!));
    expect(again.usage?.prompt_tokens).toBe(seen.usage?.prompt_tokens);
  });

  it('a reasoning model: reasoning_tokens pass through (streamed and not) and cost the reasoning price', async () => {
    let answer: OpenAI.Chat.ChatCompletion | undefined;
    const ask = { model: 'acme/o4-mini', messages: [{ role: 'user' as const, content: 'think hard' }], reasoning_effort: 'high' as const };
    const cost = await charged(async () => (answer = await sdk().chat.completions.create(ask)));
    const usage = answer!.usage!;
    // The fake's high effort: 32 reasoning tokens, inside completion_tokens.
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(32);
    expect(usage.completion_tokens).toBeGreaterThan(32);
    expect(openai.requests.at(-1)?.body.reasoning_effort).toBe('high');
    expect(cost).toBe(costOf('o4-mini', usage));
    // Priced at 600, not the output's 400.
    expect(cost).toBe(usage.prompt_tokens * 100 + (usage.completion_tokens - 32) * 400 + 32 * 600);

    let streamed: Usage | undefined;
    const streamedCost = await charged(async () => {
      const stream = await sdk().chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    });
    expect(streamed?.completion_tokens_details?.reasoning_tokens).toBe(32);
    expect(streamedCost).toBe(costOf('o4-mini', streamed!));
  });
});

describe('the Responses API: input_tokens_details and output_tokens_details', () => {
  const input = (topic: string) => [
    { role: 'system' as const, content: longPrompt(topic) },
    { role: 'user' as const, content: 'hello responses' },
  ];
  type ResponseUsage = NonNullable<OpenAI.Responses.Response['usage']>;
  const asChat = (usage: ResponseUsage): Usage => ({
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details.cached_tokens },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details.reasoning_tokens },
  });

  it('translated to chat (plain): the details come from the chat usage, and price as chat does', async () => {
    const ask = () => sdk().responses.create({ model: 'plain/gpt-fake', input: input('responses, translated') });
    await ask();
    let response: OpenAI.Responses.Response | undefined;
    const cost = await charged(async () => (response = await ask()));
    const usage = response!.usage!;
    expect(usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(usage.output_tokens_details.reasoning_tokens).toBe(0);
    expect(cost).toBe(costOf('gpt-fake', asChat(usage)));

    let reasoned: ResponseUsage | undefined;
    const reasoningCost = await charged(async () => {
      const stream = await sdk().responses.create({ model: 'plain/o4-mini', input: 'a streamed thought', reasoning: { effort: 'low' }, stream: true });
      for await (const event of stream) if (event.type === 'response.completed') reasoned = event.response.usage ?? undefined;
    });
    expect(reasoned?.output_tokens_details.reasoning_tokens).toBe(8);
    expect(reasoningCost).toBe(costOf('o4-mini', asChat(reasoned!)));
  });

  it('native (acme): the upstream’s details pass through and are priced', async () => {
    const ask = () => sdk().responses.create({ model: 'acme/o4-mini', input: input('responses, native'), reasoning: { effort: 'medium' } });
    await ask();
    let response: OpenAI.Responses.Response | undefined;
    const cost = await charged(async () => (response = await ask()));
    expect(openai.requests.at(-1)?.path).toBe('/v1/responses');
    const usage = response!.usage!;
    expect(usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(usage.output_tokens_details.reasoning_tokens).toBe(16);
    expect(cost).toBe(costOf('o4-mini', asChat(usage)));
  });
});
