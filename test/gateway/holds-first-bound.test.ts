import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { promptTokensOf, startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { liveKeyOf } from '../helpers/holds-burst.js';
import { toMicro } from '../helpers/reliability.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * What a hold takes first (issue 23): a long input by its UTF-8 bytes (no tokenizer on the way in),
 * the tokenizer's exact bound only when that is refused; and web searches, billed per call, held
 * for as many as the request can run — capped upstream where the client set no cap.
 */
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let t: TestServer;

/** 0.1 credit an input token, 0.2 an output token; a web search 1 credit. */
const PRICES = { input_price: 1000, output_price: 2000 } as const;
const SEARCH_CREDITS = 1;
/** The searching model's window: each search's results may fill it (as input of the step that reads them). */
const WINDOW = 1_000;
/** What a hold takes for each search: its fee and a window of results at 0.1 credit a token. */
const PER_SEARCH = SEARCH_CREDITS + WINDOW * 0.1;

beforeAll(async () => {
  openai = await startFakeOpenAI();
  anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
  const file = join(mkdtempSync(join(tmpdir(), 'svc-providers-')), 'providers.json');
  const providers = [
    { id: 'oai', type: 'openai', base_url: openai.url, api_key_env: 'FAKE_OPENAI_KEY', models: [{ id: 'gpt-4o-mini', ...PRICES, context_length: 128_000 }] },
    {
      id: 'ant',
      type: 'anthropic',
      base_url: anthropic.url,
      api_key_env: 'FAKE_ANTHROPIC_KEY',
      models: [{ id: 'claude-fake', ...PRICES, web_search_price: SEARCH_CREDITS / 100, context_length: WINDOW }],
    },
  ];
  writeFileSync(file, JSON.stringify({ providers }));
  t = await startTestServer({ providersFile: file, env: { FAKE_OPENAI_KEY: openai.apiKey, FAKE_ANTHROPIC_KEY: 'anthropic-test-key' } });
});
afterAll(async () => {
  await t?.close();
  await openai?.close();
  await anthropic?.close();
});

const keyWith = async (balanceCredits: number) => (await liveKeyOf(t, balanceCredits)).key;

describe('a long OpenAI conversation is held by its bytes first', () => {
  // About 40 KB of English: some 8,000 tokens, 40,000 bytes.
  const prose = 'The committee reviewed the quarterly figures and agreed to revisit the budget next month. '.repeat(450);
  const body = { model: 'oai/gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: prose }] };
  const tokens = promptTokensOf('gpt-4o-mini', body.messages);
  const bytes = Buffer.byteLength(prose);

  it('is served when the balance pays for its exact bound though not for its bytes, and charged what the upstream counted', async () => {
    expect(bytes).toBeGreaterThan(4 * tokens);
    // Enough for the exact bound (and its framing) with room, far from the bytes bound.
    const key = await keyWith(Math.ceil((tokens + 100) * 0.1 + 10 * 0.2) + 5);
    const answer = await t.call('POST', `${API}/chat/completions`, { key, body });
    expect(answer.status).toBe(200);
    expect(answer.body.usage.prompt_tokens).toBe(tokens);
    expect(toMicro(answer.body.usage.cost)).toBe(tokens * 100_000 + answer.body.usage.completion_tokens * 200_000);
  });

  it('is refused with the exact bound named when the balance pays for neither', async () => {
    const key = await keyWith(Math.floor(tokens * 0.1 * 0.5));
    const answer = await t.call('POST', `${API}/chat/completions`, { key, body });
    expect(answer.status).toBe(402);
    const named = Number(/\((\d+) input tokens/.exec(answer.body.error.message)?.[1]);
    expect(named).toBeGreaterThanOrEqual(tokens);
    expect(named).toBeLessThan(tokens + 100);
  });
});

describe('web searches are held for as many as a request can run', () => {
  const search = (extra: Record<string, unknown> = {}) => ({ type: 'web_search_20250305', name: 'web_search', ...extra });
  const body = (tools: unknown[]) => ({ model: 'ant/claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools });
  const lastTools = () => (anthropic.requests.at(-1)?.body as { tools?: { max_uses?: number }[] }).tools;
  /** The hold without searches: the request's bytes and framing at 0.1 credit, 10 output tokens at 0.2; a few credits. */
  const WITHOUT_SEARCHES = 20;

  it('a web-search tool without max_uses is sent capped at 10, and the hold covers 10 searches, their results included', async () => {
    const rich = await keyWith(WITHOUT_SEARCHES + 10 * PER_SEARCH + 5);
    const served = await t.call('POST', `${API}/messages`, { key: rich, body: body([search()]) });
    expect(served.status).toBe(200);
    expect(lastTools()?.[0]?.max_uses).toBe(10);

    const poor = await keyWith(WITHOUT_SEARCHES + 5 * PER_SEARCH);
    const refused = await t.call('POST', `${API}/messages`, { key: poor, body: body([search()]) });
    expect(refused.status).toBe(402);
  });

  it("the client's own max_uses is kept and held", async () => {
    const key = await keyWith(WITHOUT_SEARCHES + 5 * PER_SEARCH);
    const served = await t.call('POST', `${API}/messages`, { key, body: body([search({ max_uses: 2 })]) });
    expect(served.status).toBe(200);
    expect(lastTools()?.[0]?.max_uses).toBe(2);
  });

  it('a request without a web-search tool goes out unchanged', async () => {
    const key = await keyWith(WITHOUT_SEARCHES + 5);
    const tool = { name: 'lookup', description: 'Look a word up', input_schema: { type: 'object', properties: {} } };
    const served = await t.call('POST', `${API}/messages`, { key, body: body([tool]) });
    expect(served.status).toBe(200);
    expect(lastTools()).toEqual([tool]);
  });
});
