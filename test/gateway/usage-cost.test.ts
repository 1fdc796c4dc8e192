import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/**
 * Every inference answer says what it was charged, as OpenRouter's `usage.cost` does (in credits
 * here): chat completions streamed and not, embeddings, and the Messages API; 0 for a test key.
 * `paid/echo` costs 0.1 credits an input token and 0.2 an output token.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ providers: [pricedProvider()] });
});
afterAll(async () => t?.close());

const openai = (apiKey = t.liveKey) => new OpenAI({ apiKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
const balance = async () => Number((await t.call('GET', `${API}/credits/balance`)).body.credits);
const priced = (usage: { prompt_tokens: number; completion_tokens?: number }) =>
  Math.round((usage.prompt_tokens * 0.1 + (usage.completion_tokens ?? 0) * 0.2) * 1e6) / 1e6;

describe('usage.cost on every answer', () => {
  it('a chat completion carries the credits it was charged', async () => {
    const before = await balance();
    const completion = await openai().chat.completions.create({ model: 'paid/echo', messages: [{ role: 'user', content: 'what does this cost' }], max_tokens: 20 });
    const usage = completion.usage as OpenAI.CompletionUsage & { cost?: number };
    expect(usage.cost).toBeCloseTo(priced(usage), 6);
    expect(before - (await balance())).toBeCloseTo(usage.cost!, 6);
  });

  it('a streamed chat completion ends with a usage chunk that carries the cost', async () => {
    const before = await balance();
    const stream = await openai().chat.completions.create({
      model: 'paid/echo',
      messages: [{ role: 'user', content: 'stream the cost' }],
      max_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: (OpenAI.CompletionUsage & { cost?: number }) | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.cost).toBeCloseTo(priced(usage!), 6);
    expect(before - (await balance())).toBeCloseTo(usage!.cost!, 6);
  });

  it('embeddings carry their cost; a test key is charged 0 and says so', async () => {
    const embedded = await openai().embeddings.create({ model: 'paid/embed', input: 'price these words' });
    const usage = embedded.usage as OpenAI.Embeddings.CreateEmbeddingResponse.Usage & { cost?: number };
    expect(usage.cost).toBeCloseTo(priced(usage), 6);

    const local = await openai(t.testKey).chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'free' }] });
    expect((local.usage as { cost?: number }).cost).toBe(0);
  });

  it('the Messages API, translated, carries the cost in its usage, streamed and not', async () => {
    const before = await balance();
    const answer = await t.call('POST', `${API}/messages`, {
      body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'anthropic shaped cost' }] },
    });
    expect(answer.status).toBe(200);
    const charged = before - (await balance());
    expect(answer.body.usage.cost).toBeCloseTo(charged, 6);

    const streamed = await fetch(`${t.url}${API}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.liveKey },
      body: JSON.stringify({ model: 'paid/echo', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'stream it' }] }),
    });
    const events = (await streamed.text()).split('\n\n').filter((event) => event.startsWith('event: message_delta'));
    const delta = JSON.parse(events.at(-1)!.split('\ndata: ')[1]!);
    expect(delta.usage.cost).toBeGreaterThan(0);
  });
});

describe('a request that could cost more than any balance holds', () => {
  it('is a 402, never a 500, and charges nothing', async () => {
    const before = await balance();
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'paid/echo', max_tokens: 1e15, messages: [{ role: 'user', content: 'a huge budget' }] },
    });
    expect(answer.status).toBe(402);
    expect(answer.body.error.message).toContain('more than any balance can hold');
    expect(await balance()).toBe(before);
  });
});

describe('usage.cost on Responses answers, relayed and translated', () => {
  let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
  let server: TestServer;
  beforeAll(async () => {
    // $0.50 and $1.50 per million tokens: 0.00005 and 0.00015 credits a token.
    const model = (id: string) => ({ id, input_price: 0.5, output_price: 1.5, context_length: 8192 });
    upstreams = await startFakeUpstreams((urls) => [
      { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', supports_responses: true, models: [model('gpt-fake')] },
      { id: 'plain', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: [model('gpt-fake')] },
    ]);
    server = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
  });
  afterAll(async () => {
    await server?.close();
    await upstreams?.close();
  });
  const sdk = () => new OpenAI({ apiKey: server.liveKey, baseURL: `${server.url}${API}`, maxRetries: 0 });
  const balanceOf = async () => Number((await server.call('GET', `${API}/credits/balance`)).body.credits);
  const pricedAt = (usage: { input_tokens: number; output_tokens: number }) => Math.round((usage.input_tokens * 0.5 + usage.output_tokens * 1.5) * 100) / 1e6;

  for (const model of ['acme/gpt-fake', 'plain/gpt-fake']) {
    it(`a response carries what it was charged, streamed and not, and GET shows the same: ${model}`, async () => {
      const before = await balanceOf();
      const answer = await sdk().responses.create({ model, input: 'what does a response cost', max_output_tokens: 30 });
      const usage = answer.usage as OpenAI.Responses.ResponseUsage & { cost?: number };
      expect(usage.cost).toBeGreaterThan(0);
      expect(usage.cost).toBeCloseTo(pricedAt(usage), 6);
      expect(before - (await balanceOf())).toBeCloseTo(usage.cost!, 6);
      expect(((await sdk().responses.retrieve(answer.id)).usage as { cost?: number }).cost).toBe(usage.cost);

      const middle = await balanceOf();
      const stream = await sdk().responses.create({ model, input: 'and streamed?', max_output_tokens: 30, stream: true });
      let final: (OpenAI.Responses.ResponseUsage & { cost?: number }) | undefined;
      for await (const event of stream) if (event.type === 'response.completed') final = event.response.usage as typeof final;
      expect(final?.cost).toBeGreaterThan(0);
      expect(final!.cost).toBeCloseTo(pricedAt(final!), 6);
      expect(middle - (await balanceOf())).toBeCloseTo(final!.cost!, 6);
    });
  }
});
