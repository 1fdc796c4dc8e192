import { calcPrice, findProvider, type ModelInfo, type ModelPrice, type Provider } from '@pydantic/genai-prices';
import { openAIServiceTiers } from './openai-service-tiers.js';
import type { PriceModel, PriceTier, TokenPrices } from './types.js';

/**
 * The built-in price catalog: a model id and where it is served → its whole price model, from
 * @pydantic/genai-prices, which people who track providers' prices for a living keep current.
 * Its data ships inside the package: nothing is fetched at install or at run time (the package
 * fetches only when `updatePrices` is called, which svc never does).
 */

/** Where a model is served: enough to tell which of the catalog's providers prices it. */
export interface CatalogHost {
  type: 'openai' | 'anthropic';
  baseUrl: string;
  /** The provider's id in svc (`openai`, `groq`, `my-gemini`, …). */
  providerId: string;
}

export type CatalogAnswer =
  | { kind: 'found'; prices: PriceModel; contextLength: number | null; provider: string; model: string }
  /** The host is known and does not list the model, or nothing in the catalog is called so. */
  | { kind: 'missing'; provider: string | null }
  /** The host is unknown and several of the catalog's providers price the model differently. */
  | { kind: 'ambiguous'; providers: string[] };

/**
 * The catalog's providers a model id is looked for in when the host is none of them (a proxy, a
 * self-hosted gateway): OpenAI-compatible hosts people use, by the catalog's ids.
 */
const COMMON_PROVIDERS = ['openai', 'anthropic', 'google', 'openrouter', 'groq', 'mistral', 'deepseek', 'x-ai', 'together'];

/** The catalog's per-million price keys, and ours. */
const TOKEN_KEYS = {
  input_mtok: 'inputPrice',
  output_mtok: 'outputPrice',
  cache_read_mtok: 'cachedInputPrice',
  cache_write_mtok: 'cacheWritePrice',
  cache_write_1h_mtok: 'cacheWrite1hPrice',
  output_reasoning_mtok: 'reasoningPrice',
} as const satisfies Record<string, keyof TokenPrices>;

/**
 * The catalog's prices as ours. A tiered price (`{base, tiers: [{start, price}]}`) is the base
 * price, and from `start` input tokens up, for the whole request, the tier's: each distinct
 * `start` becomes one input tier giving the fields that change there. Web searches are priced
 * per thousand. Prices for other units (audio, images, pages) have no counterpart in what
 * upstreams report here, so those tokens are billed as text.
 */
function priceModelOf(price: ModelPrice): PriceModel {
  const model: PriceModel = {};
  const tiers = new Map<number, PriceTier>();
  for (const [key, field] of Object.entries(TOKEN_KEYS)) {
    const value = price[key];
    if (value === undefined) continue;
    if (typeof value === 'number') {
      model[field] = value;
      continue;
    }
    model[field] = value.base;
    for (const step of value.tiers) {
      const tier = tiers.get(step.start) ?? { aboveInputTokens: step.start };
      tier[field] = step.price;
      tiers.set(step.start, tier);
    }
  }
  if (tiers.size > 0) model.tiers = [...tiers.values()].sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
  const searches = price.web_searches_kcount;
  if (typeof searches === 'number') model.webSearchPrice = searches / 1000;
  return model;
}

const weight = (price: ModelPrice) => [price.input_mtok, price.output_mtok].reduce<number>((sum, p) => sum + (typeof p === 'number' ? p : (p?.base ?? 0)), 0);

/**
 * The prices that apply at `at`: the latest dated price that has started. Prices by time of day
 * (DeepSeek's off-peak hours) cannot follow the hour in a price fixed at start, so the dearest
 * of them and the dated price is taken: a request is never billed below what it may cost.
 */
function pricesAt(model: ModelInfo, at: Date): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  const started = model.prices.filter(
    (price) => price.constraint === undefined || (price.constraint.type === 'start_date' && at >= new Date(price.constraint.start_date)),
  );
  const dated = (started.at(-1) ?? model.prices[0])?.prices ?? {};
  const hourly = model.prices.filter((price) => price.constraint?.type === 'time_of_date').map((price) => price.prices);
  return [dated, ...hourly].reduce((dearest, price) => (weight(price) > weight(dearest) ? price : dearest));
}

/** The model in one of the catalog's providers (with its dated-id aliases and fallbacks), or null. */
function modelIn(provider: Provider, modelId: string): ModelInfo | null {
  return calcPrice({}, modelId, { provider })?.model ?? null;
}

function found(provider: Provider, model: ModelInfo, at: Date): CatalogAnswer {
  const prices = priceModelOf(pricesAt(model, at));
  if (prices.inputPrice === undefined) return { kind: 'missing', provider: provider.id };
  // The catalog bills only the units it lists: a model without an output price (embeddings) has no output to bill.
  prices.outputPrice ??= 0;
  const serviceTiers = provider.id === 'openai' ? openAIServiceTiers(model.id, prices) : undefined;
  if (serviceTiers) prices.serviceTiers = serviceTiers;
  return { kind: 'found', prices, contextLength: model.context_window ?? null, provider: provider.id, model: model.id };
}

/**
 * The catalog's provider for a host: by its base URL (api.openai.com → openai, openrouter.ai →
 * openrouter, api.groq.com → groq, generativelanguage.googleapis.com → google, …), else by its
 * id or a name the catalog knows it by, else Anthropic for an `anthropic`-type provider.
 */
export function catalogProviderOf(host: CatalogHost): Provider | null {
  return (
    findProvider({ providerApiUrl: host.baseUrl }) ??
    findProvider({ providerId: host.providerId }) ??
    (host.type === 'anthropic' ? findProvider({ providerId: 'anthropic' }) : undefined) ??
    null
  );
}

/**
 * A model's price in the catalog, as it applies `at` (default: now). With a known host, that
 * host's price. With an unknown one and `guess`, the model id is looked for among the common
 * providers, and taken only when those that have it agree on its price.
 */
export function catalogPrice(modelId: string, host: CatalogHost, options: { at?: Date | undefined; guess?: boolean } = {}): CatalogAnswer {
  const at = options.at ?? new Date();
  const provider = catalogProviderOf(host);
  if (provider) {
    const model = modelIn(provider, modelId);
    return model ? found(provider, model, at) : { kind: 'missing', provider: provider.id };
  }
  if (options.guess === false) return { kind: 'missing', provider: null };
  const answers = COMMON_PROVIDERS.flatMap((id) => {
    const candidate = findProvider({ providerId: id });
    const model = candidate && modelIn(candidate, modelId);
    const answer = candidate && model ? found(candidate, model, at) : null;
    return answer?.kind === 'found' ? [answer] : [];
  });
  if (answers.length === 0) return { kind: 'missing', provider: null };
  const [richest] = [...answers].sort((a, b) => fieldCount(b.prices) - fieldCount(a.prices));
  const agreed = richest && answers.every((answer) => compatible(answer.prices, richest.prices));
  return agreed ? richest : { kind: 'ambiguous', providers: answers.map((answer) => answer.provider) };
}

const fieldCount = (value: unknown): number =>
  typeof value === 'object' && value !== null ? Object.values(value).reduce<number>((sum, inner) => sum + 1 + fieldCount(inner), 0) : 0;

/**
 * Whether two providers' prices agree wherever both give one (Vertex lists Claude without
 * Anthropic's 1-hour cache writes: the same price, less of it).
 */
function compatible(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  return Object.keys(left).every((key) => !(key in right) || compatible(left[key], right[key]));
}
