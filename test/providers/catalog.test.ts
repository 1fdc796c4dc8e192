import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalogPrice, type CatalogHost } from '../../server/providers/catalog.js';
import { modelEntries, resolveProviders, type ProviderConfig } from '../../server/providers/config.js';

/**
 * The built-in catalog: @pydantic/genai-prices' data mapped to svc's price model, the catalog's
 * provider chosen by where a model is served, and providers-file prices over the catalog's.
 */
const host = (baseUrl: string, providerId = 'mine', type: CatalogHost['type'] = 'openai'): CatalogHost => ({ type, baseUrl, providerId });
const UNKNOWN_HOST = host('http://127.0.0.1:9000/v1', 'acme');

function found(answer: ReturnType<typeof catalogPrice>) {
  if (answer.kind !== 'found') throw new Error(`expected a catalog price, got ${JSON.stringify(answer)}`);
  return answer;
}

describe('the catalog', () => {
  it("maps a model's whole price: cache, 1-hour writes, long-context tiers for the whole request, web searches", () => {
    const sonnet = found(catalogPrice('claude-sonnet-4-5', host('https://api.anthropic.com/v1', 'anthropic', 'anthropic')));
    expect(sonnet).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5', contextLength: 200_000 });
    expect(sonnet.prices).toEqual({
      inputPrice: 3,
      outputPrice: 15,
      cachedInputPrice: 0.3,
      cacheWritePrice: 3.75,
      cacheWrite1hPrice: 6,
      tiers: [{ aboveInputTokens: 200_000, inputPrice: 6, outputPrice: 22.5, cachedInputPrice: 0.6, cacheWritePrice: 7.5, cacheWrite1hPrice: 12 }],
      // $10 per thousand searches.
      webSearchPrice: 0.01,
    });
    // A dated id is the model it dates.
    expect(found(catalogPrice('claude-sonnet-4-5-20250929', host('https://api.anthropic.com/v1', 'anthropic', 'anthropic'))).model).toBe('claude-sonnet-4-5');
  });

  it.each([
    ['https://api.openai.com/v1', 'gpt-4o-mini', 'openai'],
    ['https://openrouter.ai/api/v1', 'openai/gpt-4o-mini', 'openrouter'],
    ['https://api.groq.com/openai/v1', 'llama-3.3-70b-versatile', 'groq'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/', 'gemini-2.5-flash', 'google'],
    ['https://api.mistral.ai/v1', 'mistral-large-latest', 'mistral'],
    ['https://api.deepseek.com', 'deepseek-chat', 'deepseek'],
    ['https://api.x.ai/v1', 'grok-4', 'x-ai'],
    ['https://api.together.xyz/v1', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 'together'],
  ])('an OpenAI-compatible host is priced by its base URL: %s is %s at %s', (baseUrl, model, provider) => {
    expect(found(catalogPrice(model, host(baseUrl))).provider).toBe(provider);
  });

  it("an unknown URL is matched by the provider's id, an anthropic-type provider is Anthropic", () => {
    expect(found(catalogPrice('llama-3.3-70b-versatile', host('http://127.0.0.1:9000/v1', 'groq'))).provider).toBe('groq');
    expect(found(catalogPrice('claude-haiku-4-5', host('http://127.0.0.1:9000/v1', 'proxy', 'anthropic'))).provider).toBe('anthropic');
    // A known host that does not list the model: no guess elsewhere.
    expect(catalogPrice('gpt-4o-mini', host('https://api.groq.com/openai/v1'))).toEqual({ kind: 'missing', provider: 'groq' });
  });

  it('on an unknown host, a model id is matched across providers only when unambiguous', () => {
    expect(found(catalogPrice('gpt-4o-mini', UNKNOWN_HOST, { guess: true })).provider).toBe('openai');
    // Vertex lists Claude with less of Anthropic's price, none of it different: still one price.
    expect(found(catalogPrice('claude-sonnet-4-5', UNKNOWN_HOST, { guess: true })).provider).toBe('anthropic');
    expect(catalogPrice('deepseek-r1-distill-llama-8b', UNKNOWN_HOST, { guess: true })).toEqual({ kind: 'ambiguous', providers: ['openrouter', 'deepseek'] });
    expect(catalogPrice('gpt-4o-mini', UNKNOWN_HOST, { guess: false })).toEqual({ kind: 'missing', provider: null });
    expect(catalogPrice('acme/fast-1', UNKNOWN_HOST, { guess: true })).toEqual({ kind: 'missing', provider: null });
  });

  it("fills OpenAI's service tiers: flex at half of every price (long context too), priority at its published price", () => {
    const gpt5 = found(catalogPrice('gpt-5', host('https://api.openai.com/v1', 'openai'))).prices;
    expect(gpt5.serviceTiers).toEqual({
      flex: { inputPrice: 0.625, cachedInputPrice: 0.0625, outputPrice: 5 },
      priority: { inputPrice: 2.5, cachedInputPrice: 0.25, outputPrice: 20 },
    });
    const terra = found(catalogPrice('gpt-5.6-terra', host('https://api.openai.com/v1', 'openai'))).prices;
    expect(terra.serviceTiers?.flex?.tiers).toEqual(terra.tiers?.map((tier) => ({ ...tier, inputPrice: (tier.inputPrice ?? 0) / 2, outputPrice: (tier.outputPrice ?? 0) / 2, cachedInputPrice: (tier.cachedInputPrice ?? 0) / 2, cacheWritePrice: (tier.cacheWritePrice ?? 0) / 2 })));
    // No service tiers where OpenAI publishes none.
    expect(found(catalogPrice('openai/gpt-4o-mini', host('https://openrouter.ai/api/v1'))).prices.serviceTiers).toBeUndefined();
  });

  it('takes the price that applies at a date, and the dearer hours of a price by time of day', () => {
    const openai = host('https://api.openai.com/v1', 'openai');
    expect(found(catalogPrice('o3', openai, { at: new Date('2025-06-01T00:00:00Z') })).prices).toMatchObject({ inputPrice: 10, outputPrice: 40 });
    expect(found(catalogPrice('o3', openai, { at: new Date('2025-06-10T00:00:00Z') })).prices).toMatchObject({ inputPrice: 2, outputPrice: 8 });
    // DeepSeek bills less off-peak; a price fixed at start cannot follow the hour, so it is the peak's at every hour.
    for (const at of ['2026-11-25T02:00:00Z', '2026-11-25T20:00:00Z']) {
      expect(found(catalogPrice('deepseek-chat', host('https://api.deepseek.com'), { at: new Date(at) })).prices).toMatchObject({ inputPrice: 0.27, outputPrice: 1.1 });
    }
  });

  it('an embedding model, which the catalog prices by input only, has no output to bill', () => {
    expect(found(catalogPrice('text-embedding-3-small', host('https://api.openai.com/v1'))).prices).toMatchObject({ inputPrice: 0.02, outputPrice: 0 });
  });

  describe('no network', () => {
    afterEach(() => vi.restoreAllMocks());

    it('the package data is read from the package: a fresh load and every lookup fetch nothing', async () => {
      const fetch = vi.spyOn(globalThis, 'fetch');
      vi.resetModules();
      const fresh = await import('../../server/providers/catalog.js');
      found(fresh.catalogPrice('gpt-5', host('https://api.openai.com/v1', 'openai')));
      fresh.catalogPrice('acme/fast-1', UNKNOWN_HOST, { guess: true });
      expect(fetch).not.toHaveBeenCalled();
      // It fetches only from a storage factory given to updatePrices, which svc never calls.
      const dist = readFileSync(createRequire(import.meta.url).resolve('@pydantic/genai-prices'), 'utf8');
      expect(dist).not.toMatch(/\bfetch\(/);
    });
  });
});

describe('providers-file prices over the catalog', () => {
  const anthropic = (models: ProviderConfig['models']): ProviderConfig => ({ id: 'claude', type: 'anthropic', base_url: 'http://127.0.0.1:9000/v1', models });

  it('a model with no price takes the catalog’s, and says so', () => {
    const [entry] = modelEntries(anthropic([{ id: 'claude-sonnet-4-5' }]));
    expect(entry).toMatchObject({
      id: 'claude/claude-sonnet-4-5',
      inputPrice: 3,
      outputPrice: 15,
      cachedInputPrice: 0.3,
      contextLength: 200_000,
      priceOrigin: { source: 'catalog', catalog: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
    });
  });

  it("the file's prices win field by field: a file tier list or service tier replaces the catalog's", () => {
    const [entry] = modelEntries(
      anthropic([{ id: 'claude-sonnet-4-5', input_price: 2, reasoning_price: 20, tiers: [{ above_input_tokens: 100_000, input_price: 4 }], web_search_price: 0.02 }]),
    );
    expect(entry).toMatchObject({
      inputPrice: 2,
      outputPrice: 15,
      reasoningPrice: 20,
      // Given: kept. Left out: the catalog's (Anthropic's own 0.3, not the rule's 0.1 × 2).
      cachedInputPrice: 0.3,
      cacheWrite1hPrice: 6,
      // A file tier without cache prices gets Anthropic's rule on its input price.
      tiers: [{ aboveInputTokens: 100_000, inputPrice: 4, cachedInputPrice: 0.4, cacheWritePrice: 5, cacheWrite1hPrice: 8 }],
      webSearchPrice: 0.02,
      priceOrigin: { source: 'providers_file_and_catalog', catalog: { provider: 'anthropic' } },
    });
  });

  it('a service tier given as a multiplier scales every standard price and tier; its own prices win', () => {
    const openai: ProviderConfig = {
      id: 'openai',
      type: 'openai',
      base_url: 'https://api.openai.com/v1',
      models: [{ id: 'gpt-5.6-terra', service_tiers: { flex: { multiplier: 0.25, output_price: 1 } } }],
    };
    const [entry] = modelEntries(openai);
    expect(entry?.serviceTiers?.flex).toMatchObject({ inputPrice: 0.5, outputPrice: 1, tiers: [{ aboveInputTokens: 271_999, inputPrice: 1, outputPrice: 4.5 }] });
    // The catalog's priority tier, which the file does not touch, stays (here: none published).
    expect(entry?.serviceTiers?.priority).toBeUndefined();
  });

  it('a model the file prices on a host the catalog does not know is priced by the file alone', () => {
    const acme: ProviderConfig = { id: 'acme', type: 'openai', base_url: 'http://127.0.0.1:9000/v1', models: [{ id: 'gpt-4o-mini', input_price: 0.5, output_price: 1.5 }] };
    const [entry] = modelEntries(acme);
    expect(entry).toMatchObject({ inputPrice: 0.5, outputPrice: 1.5, priceOrigin: { source: 'providers_file' } });
    expect(entry?.cachedInputPrice).toBeUndefined();
    expect(entry?.serviceTiers).toBeUndefined();
  });

  it('a model with no price anywhere is refused, naming where it is and what to add', () => {
    const acme: ProviderConfig = { id: 'acme', type: 'openai', base_url: 'http://127.0.0.1:9000/v1', models: [{ id: 'fast-1' }, { id: 'half', input_price: 1 }] };
    expect(() => modelEntries({ ...acme, models: [acme.models[0]!] }, { where: () => 'providers.json:4:7' })).toThrow(
      "providers.json:4:7: model 'acme/fast-1' has no price in the file and none in the catalog; add input_price and output_price",
    );
    expect(() => modelEntries({ ...acme, models: [acme.models[1]!] })).toThrow("provider acme: model 'acme/half' has no price in the file and none in the catalog; add output_price");
    const groq: ProviderConfig = { id: 'groq', type: 'openai', base_url: 'https://api.groq.com/openai/v1', models: [{ id: 'nope-1' }] };
    expect(() => modelEntries(groq)).toThrow("model 'groq/nope-1' has no price in the file and none in the catalog (groq); add input_price and output_price");
    const guess: ProviderConfig = { ...acme, models: [{ id: 'deepseek-r1-distill-llama-8b' }] };
    expect(() => modelEntries(guess)).toThrow('the catalog prices it differently at openrouter, deepseek; add input_price and output_price');
  });

  it('the built-in providers list their models from the catalog, every one priced', () => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', OPENROUTER_API_KEY: 'k', OLLAMA_BASE_URL: 'http://127.0.0.1:11434', OLLAMA_MODELS: 'llama3.2' };
    const providers = resolveProviders(env, null);
    for (const provider of providers.filter((p) => p.config.id !== 'ollama')) {
      // Each listed model is in the catalog (a model it stopped listing would be left out).
      expect(provider.models.map((m) => m.model)).toEqual(provider.config.models.map((m) => m.id));
      for (const model of provider.models) expect(model.priceOrigin?.source, model.id).toBe('catalog');
    }
    const byId = new Map(providers.flatMap((p) => p.models).map((m) => [m.id, m]));
    expect(byId.get('anthropic/claude-haiku-4-5')).toMatchObject({ inputPrice: 1, outputPrice: 5, cachedInputPrice: 0.1, cacheWritePrice: 1.25, cacheWrite1hPrice: 2 });
    expect(byId.get('openai/text-embedding-3-small')).toMatchObject({ inputPrice: 0.02, outputPrice: 0, capabilities: ['embeddings'] });
    expect(byId.get('openai/gpt-5-mini')?.serviceTiers?.priority).toEqual({ inputPrice: 0.45, cachedInputPrice: 0.045, outputPrice: 3.6 });
    expect(byId.get('ollama/llama3.2')).toMatchObject({ inputPrice: 0, outputPrice: 0, priceOrigin: { source: 'built_in' } });
  });
});
