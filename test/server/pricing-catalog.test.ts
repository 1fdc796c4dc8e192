import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { checkConservation } from '../../server/services/conservation.js';
import { API, createOwnerApp, expectApiError, expectStatus } from '../helpers/api.js';
import { tempDir, removeTempDirs } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/**
 * Prices from the catalog end to end: a providers file names models, some without prices; the
 * server prices them from @pydantic/genai-prices, shows the whole price and its source in
 * GET /models, and charges requests to the micro-credit by tier and service tier.
 */
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
let t: TestServer;

beforeAll(async () => {
  upstreams = await startFakeUpstreams((urls) => [
    {
      id: 'claude',
      type: 'anthropic',
      base_url: urls.anthropic,
      api_key_env: 'FAKE_ANTHROPIC_KEY',
      // No prices: the catalog's. An input price only: the file's, the rest the catalog's.
      models: [{ id: 'claude-sonnet-4-5' }, { id: 'claude-haiku-4-5', input_price: 2 }],
    },
    // The OpenAI provider (by its id) in front of the fake: gpt-5-mini is priced by the catalog, service tiers included.
    { id: 'openai', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: [{ id: 'gpt-5-mini' }] },
    {
      id: 'acme',
      type: 'openai',
      base_url: urls.openai,
      api_key_env: 'FAKE_OPENAI_KEY',
      models: [{ id: 'long-1', input_price: 0.5, output_price: 1.5, tiers: [{ above_input_tokens: 200_000, input_price: 1, output_price: 3 }] }],
    },
  ]);
  t = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
  removeTempDirs();
});

/** A live inference key of a new app holding `credits`, and its balance in micro-credits. */
async function fundedKey(credits = 500) {
  const app = await createOwnerApp(t, { balanceCredits: credits });
  const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'pricing', is_test: false, role: 'inference' })).secret;
  const balanceMicro = async () => {
    const balance = await t.call('GET', `${API}/credits/balance`, { key });
    expectStatus(balance, 200);
    expect(balance.body.held_credits).toBe(0);
    return Math.round(balance.body.credits * 1_000_000);
  };
  return { key, balanceMicro };
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** What usage costs at the given prices (USD per million), in micro-credits: a token at $P is P × 100, the sum rounded up once. */
function expectedMicro(usage: ChatUsage, price: { input: number; output: number; cached?: number }): number {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  // In integers (millionths of a dollar per million tokens), so that 0.45 × 100 is not 45.00000000000001.
  const exact = (usd: number) => Math.round(usd * 1e6);
  const sum = (usage.prompt_tokens - cached) * exact(price.input) + cached * exact(price.cached ?? price.input) + usage.completion_tokens * exact(price.output);
  return Math.ceil(sum / 10_000);
}

async function chat(key: string, body: Record<string, unknown>) {
  const answer = await t.call('POST', `${API}/chat/completions`, { key, body: { max_tokens: 50, ...body } });
  expectStatus(answer, 200);
  return answer.body as { usage: ChatUsage; service_tier?: string };
}

describe('prices from the catalog', () => {
  it('GET /models shows the whole price of each model and where it came from', async () => {
    const answer = await t.call('GET', `${API}/models`);
    expectStatus(answer, 200);
    const byId = new Map<string, { pricing: unknown }>(answer.body.data.map((m: { id: string; pricing: unknown }) => [m.id, m]));
    /** Every per-token price, USD per million, in the order input, output, cache read, 5-minute write, 1-hour write, reasoning. */
    const perMillion = (...[input, output, cached, write, write1h, reasoning]: (number | undefined)[]) =>
      Object.fromEntries(
        Object.entries({ input, output, cached_input: cached, cache_write: write, cache_write_1h: write1h, reasoning })
          .filter(([, price]) => price !== undefined)
          .map(([kind, price]) => [`${kind}_per_million_usd`, price]),
      );
    expect(byId.get('claude/claude-sonnet-4-5')).toMatchObject({
      context_length: 200_000,
      pricing: {
        ...perMillion(3, 15, 0.3, 3.75, 6, 15),
        tiers: [{ above_input_tokens: 200_000, ...perMillion(6, 22.5, 0.6, 7.5, 12, 22.5) }],
        service_tiers: {},
        web_search_per_call_usd: 0.01,
        source: 'catalog',
        catalog: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      },
    });
    // The file's input price, the catalog's output and cache prices.
    expect(byId.get('claude/claude-haiku-4-5')?.pricing).toMatchObject({
      ...perMillion(2, 5, 0.1),
      source: 'providers_file_and_catalog',
      catalog: { provider: 'anthropic', model: 'claude-haiku-4-5' },
    });
    expect(byId.get('openai/gpt-5-mini')?.pricing).toMatchObject({
      ...perMillion(0.25, 2, 0.025),
      service_tiers: { flex: { ...perMillion(0.125, 1, 0.0125), tiers: [] }, priority: { ...perMillion(0.45, 3.6, 0.045), tiers: [] } },
      source: 'catalog',
    });
    expect(byId.get('acme/long-1')?.pricing).toMatchObject({
      ...perMillion(0.5, 1.5, 0.5),
      tiers: [{ above_input_tokens: 200_000, ...perMillion(1, 3, 1) }],
      web_search_per_call_usd: null,
      source: 'providers_file',
      catalog: null,
    });
    expect(byId.get('local/echo')?.pricing).toMatchObject({ ...perMillion(0, 0), source: 'built_in', catalog: null });
  });

  it('a model priced by the catalog, or by the file over it, is charged those prices to the micro-credit', async () => {
    const { key, balanceMicro } = await fundedKey();
    const before = await balanceMicro();
    const sonnet = await chat(key, { model: 'claude/claude-sonnet-4-5', messages: [{ role: 'user', content: 'priced by the catalog' }] });
    const afterSonnet = await balanceMicro();
    expect(before - afterSonnet).toBe(expectedMicro(sonnet.usage, { input: 3, output: 15, cached: 0.3 }));
    const haiku = await chat(key, { model: 'claude/claude-haiku-4-5', messages: [{ role: 'user', content: 'priced by the file and the catalog' }] });
    expect(afterSonnet - (await balanceMicro())).toBe(expectedMicro(haiku.usage, { input: 2, output: 5, cached: 0.1 }));
  });

  it('a request whose input exceeds a 200k-token tier is charged the tier’s prices for all of it', async () => {
    const { key, balanceMicro } = await fundedKey();
    // The fake counts as OpenAI does (its tokenizer): ' word' is one token. (A run of one letter
    // would be one pre-token of 800k characters, which byte-pair merging takes minutes over.)
    const above = await chat(key, { model: 'acme/long-1', messages: [{ role: 'user', content: 'word '.repeat(200_100) }] });
    expect(above.usage.prompt_tokens).toBeGreaterThan(200_000);
    const afterAbove = await balanceMicro();
    expect(500_000_000 - afterAbove).toBe(expectedMicro(above.usage, { input: 1, output: 3 }));

    const below = await chat(key, { model: 'acme/long-1', messages: [{ role: 'user', content: 'word '.repeat(199_000) }] });
    expect(below.usage.prompt_tokens).toBeLessThanOrEqual(200_000);
    expect(afterAbove - (await balanceMicro())).toBe(expectedMicro(below.usage, { input: 0.5, output: 1.5 }));
  });

  it('a service_tier "flex" request is charged flex prices; one that names no tier, standard', async () => {
    const { key, balanceMicro } = await fundedKey();
    const before = await balanceMicro();
    const flex = await chat(key, { model: 'openai/gpt-5-mini', service_tier: 'flex', messages: [{ role: 'user', content: 'whenever you can' }] });
    expect(upstreams.openai.requests.at(-1)?.body).toMatchObject({ service_tier: 'flex' });
    const afterFlex = await balanceMicro();
    expect(before - afterFlex).toBe(expectedMicro(flex.usage, { input: 0.125, output: 1, cached: 0.0125 }));

    const standard = await chat(key, { model: 'openai/gpt-5-mini', messages: [{ role: 'user', content: 'as usual' }] });
    expect(afterFlex - (await balanceMicro())).toBe(expectedMicro(standard.usage, { input: 0.25, output: 2, cached: 0.025 }));
  });

  it('the tier that served a request is the one billed: priority served at default costs standard, flex streamed costs flex', async () => {
    const { key, balanceMicro } = await fundedKey();
    const before = await balanceMicro();
    // OpenAI may serve a priority request at the default tier when priority capacity is short; its answer says so.
    const downgraded = await chat(key, {
      model: 'openai/gpt-5-mini',
      service_tier: 'priority',
      metadata: { fake_served_tier: 'default' },
      messages: [{ role: 'user', content: 'fast if you can' }],
    });
    expect(downgraded.service_tier).toBe('default');
    const afterDowngrade = await balanceMicro();
    expect(before - afterDowngrade).toBe(expectedMicro(downgraded.usage, { input: 0.25, output: 2, cached: 0.025 }));

    const priority = await chat(key, { model: 'openai/gpt-5-mini', service_tier: 'priority', messages: [{ role: 'user', content: 'fast' }] });
    const afterPriority = await balanceMicro();
    expect(afterDowngrade - afterPriority).toBe(expectedMicro(priority.usage, { input: 0.45, output: 3.6, cached: 0.045 }));

    const streamed = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: { model: 'openai/gpt-5-mini', service_tier: 'flex', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream slowly' }] },
    });
    const chunks = String(streamed.body)
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice(6)) as { usage?: ChatUsage; service_tier?: string });
    const usage = chunks.find((chunk) => chunk.usage)?.usage;
    expect(chunks[0]?.service_tier).toBe('flex');
    expect(afterPriority - (await balanceMicro())).toBe(expectedMicro(usage!, { input: 0.125, output: 1, cached: 0.0125 }));
  });

  it('service_tier "priority" on a model without a priority price is refused, and costs nothing', async () => {
    const { key, balanceMicro } = await fundedKey();
    const before = await balanceMicro();
    const refused = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: { model: 'acme/long-1', service_tier: 'priority', messages: [{ role: 'user', content: 'fast please' }] },
    });
    expectApiError(refused, 400, { type: 'invalid_request_error', code: 'service_tier_not_priced', param: 'service_tier' });
    expect(await balanceMicro()).toBe(before);
  });

  it('the ledger balances after all of it (svc serve --check)', async () => {
    expect(await checkConservation(t.server.store)).toMatchObject({ ok: true, problems: [] });
  });
});

describe('a model with no price anywhere', () => {
  it('is refused at start, naming the file, the line and column, and the model', async () => {
    const file = join(tempDir(), 'providers.json');
    const lines = [
      '{"providers": [',
      `  {"id": "acme", "type": "openai", "base_url": "${upstreams.openai.url}", "api_key_env": "FAKE_OPENAI_KEY",`,
      '   "models": [',
      '      {"id": "fast-0", "input_price": 1, "output_price": 2},',
      '      {"id": "fast-1"}',
      '   ]}',
      ']}',
    ];
    writeFileSync(file, lines.join('\n'));
    await expect(startServer({ dbPath: ':memory:', port: 0, providersFile: file, env: upstreams.env, log: () => {} })).rejects.toThrow(
      `${file}:5:7: model 'acme/fast-1' has no price in the file and none in the catalog; add input_price and output_price`,
    );
  });
});
