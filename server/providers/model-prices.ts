import { catalogPrice, type CatalogAnswer, type CatalogHost } from './catalog.js';
import { scaledBy, tiersScaledBy, times, TOKEN_PRICE_FIELDS } from './prices.js';
import type { PriceModel, PriceOrigin, PriceTier, ServiceTierName, ServiceTierPrices, TokenPrices } from './types.js';

/** A model's prices as a providers file spells them (USD per million tokens; a web search per call). */
export interface FileTokenPrices {
  input_price?: number | undefined;
  output_price?: number | undefined;
  cached_input_price?: number | undefined;
  cache_write_price?: number | undefined;
  cache_write_1h_price?: number | undefined;
  reasoning_price?: number | undefined;
}
export interface FileModelPrices extends FileTokenPrices {
  tiers?: (FileTokenPrices & { above_input_tokens: number })[] | undefined;
  service_tiers?: Partial<Record<ServiceTierName, FileServiceTier | undefined>> | undefined;
  web_search_price?: number | undefined;
}
export interface FileServiceTier extends FileTokenPrices {
  multiplier?: number | undefined;
  tiers?: FileModelPrices['tiers'];
}

const FILE_FIELDS = {
  input_price: 'inputPrice',
  output_price: 'outputPrice',
  cached_input_price: 'cachedInputPrice',
  cache_write_price: 'cacheWritePrice',
  cache_write_1h_price: 'cacheWrite1hPrice',
  reasoning_price: 'reasoningPrice',
} as const satisfies Record<keyof FileTokenPrices, keyof TokenPrices>;

function tokenPricesOf(file: FileTokenPrices): TokenPrices {
  const out: TokenPrices = {};
  for (const [key, field] of Object.entries(FILE_FIELDS)) {
    const price = file[key as keyof FileTokenPrices];
    if (price !== undefined) out[field] = price;
  }
  return out;
}

const tiersOf = (tiers: NonNullable<FileModelPrices['tiers']>): PriceTier[] =>
  tiers.map((tier) => ({ aboveInputTokens: tier.above_input_tokens, ...tokenPricesOf(tier) })).sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);

/** A service tier of the file over the standard prices: a multiple of them, then the prices it gives. */
function serviceTierOf(tier: FileServiceTier, standard: PriceModel): ServiceTierPrices {
  const factor = tier.multiplier;
  const multiplied: ServiceTierPrices = factor === undefined ? {} : { ...scaledBy(standard, factor), ...(standard.tiers ? { tiers: tiersScaledBy(standard.tiers, factor) } : {}) };
  return { ...multiplied, ...tokenPricesOf(tier), ...(tier.tiers ? { tiers: tiersOf(tier.tiers) } : {}) };
}

/**
 * Cache prices as multiples of the input price where a provider type publishes one rule for all
 * its models: Anthropic bills a cache read at 0.1×, a 5-minute write at 1.25× and a 1-hour write
 * at 2× (long-context tiers included). OpenAI's cached-input discount differs by model: the
 * catalog or the file gives it, else input is billed at full price.
 */
const CACHE_RULES: Partial<Record<CatalogHost['type'], { read: number; write: number; write1h: number }>> = {
  anthropic: { read: 0.1, write: 1.25, write1h: 2 },
};

function withCacheRule<T extends TokenPrices>(prices: T, type: CatalogHost['type']): T {
  const rule = CACHE_RULES[type];
  const input = prices.inputPrice;
  if (!rule || input === undefined) return prices;
  return {
    ...prices,
    cachedInputPrice: prices.cachedInputPrice ?? times(input, rule.read),
    cacheWritePrice: prices.cacheWritePrice ?? times(input, rule.write),
    cacheWrite1hPrice: prices.cacheWrite1hPrice ?? times(input, rule.write1h),
  };
}

/** The prices a providers file gives for a model (service tiers apart: they build on the standard prices). */
function filePrices(file: FileModelPrices): PriceModel {
  const prices: PriceModel = tokenPricesOf(file);
  if (file.tiers) prices.tiers = tiersOf(file.tiers);
  if (file.web_search_price !== undefined) prices.webSearchPrice = file.web_search_price;
  return prices;
}

/** Whether the catalog gave a field the file did not (a service tier counts by name). */
function filledAny(fromCatalog: PriceModel, fromFile: PriceModel, fileTiers: FileModelPrices['service_tiers']): boolean {
  return Object.keys(fromCatalog).some((field) =>
    field === 'serviceTiers' ? Object.keys(fromCatalog.serviceTiers ?? {}).some((name) => !fileTiers?.[name as ServiceTierName]) : !(field in fromFile),
  );
}

export interface ResolvedPrices {
  prices: PriceModel;
  origin: PriceOrigin;
  /** What the catalog said, to explain a model left without a price. */
  catalog: CatalogAnswer;
}

/**
 * A configured model's whole price: what the file gives, field by field over what the catalog
 * has for the model where it is served, then the provider type's published cache rule. The
 * catalog's guess by model id alone (for a host it does not know) is taken only for a model the
 * file gives no token price: a file that prices a model on an unknown host has said what it costs.
 * `builtIn`: a built-in provider's model, whose own prices (Ollama's zeros) are svc's.
 */
export function resolvePrices(modelId: string, file: FileModelPrices, host: CatalogHost, options: { builtIn?: boolean; at?: Date | undefined } = {}): ResolvedPrices {
  const fromFile = filePrices(file);
  const givesTokenPrices = TOKEN_PRICE_FIELDS.some((field) => fromFile[field] !== undefined);
  const catalog = catalogPrice(modelId, host, { at: options.at, guess: !givesTokenPrices });
  const fromCatalog: PriceModel = catalog.kind === 'found' ? catalog.prices : {};

  const { serviceTiers: catalogServiceTiers, ...catalogStandard } = fromCatalog;
  const standard = withCacheRule({ ...catalogStandard, ...fromFile }, host.type);
  if (standard.tiers) standard.tiers = standard.tiers.map((tier) => withCacheRule(tier, host.type));
  const serviceTiers = { ...catalogServiceTiers };
  for (const name of ['flex', 'priority'] as const) {
    const tier = file.service_tiers?.[name];
    if (tier) serviceTiers[name] = serviceTierOf(tier, standard);
  }
  const prices: PriceModel = Object.keys(serviceTiers).length > 0 ? { ...standard, serviceTiers } : standard;

  const catalogFilled = catalog.kind === 'found' && filledAny(fromCatalog, fromFile, file.service_tiers);
  const fileGave = Object.keys(fromFile).length > 0 || file.service_tiers !== undefined;
  const source: PriceOrigin['source'] = options.builtIn
    ? catalogFilled ? 'catalog' : 'built_in'
    : fileGave ? (catalogFilled ? 'providers_file_and_catalog' : 'providers_file') : 'catalog';
  const origin: PriceOrigin = { source, ...(catalogFilled && catalog.kind === 'found' ? { catalog: { provider: catalog.provider, model: catalog.model } } : {}) };
  return { prices, origin, catalog };
}
