import type { z } from 'zod';
import type { ModelPricing } from '../../src/contract/schemas/inference.js';
import type { ModelEntry, ServiceTierName } from '../providers/types.js';
import { inputTiersOf, pricesFor } from './inference/pricing.js';

type Pricing = z.input<typeof ModelPricing>;

/** The prices that apply to a request of `inputTokens` at `tier`, every field filled in, as the API shows them. */
function tokenPricing(entry: ModelEntry, inputTokens: number, tier: ServiceTierName | null) {
  const prices = pricesFor(entry, inputTokens, tier);
  return {
    input_per_million_usd: prices.input,
    output_per_million_usd: prices.output,
    cached_input_per_million_usd: prices.cacheRead,
    cache_write_per_million_usd: prices.cacheWrite,
    cache_write_1h_per_million_usd: prices.cacheWrite1h,
    reasoning_per_million_usd: prices.reasoning,
  };
}

/** Each input tier at `tier` with the whole of its prices (a tier in the file gives only what changes). */
function tierPricing(entry: ModelEntry, tier: ServiceTierName | null) {
  return inputTiersOf(entry, tier).map((step) => ({ above_input_tokens: step.aboveInputTokens, ...tokenPricing(entry, step.aboveInputTokens + 1, tier) }));
}

/** A model's whole price model, as `GET /models` shows it, and where it came from. */
export function pricingOf(entry: ModelEntry): Pricing {
  const serviceTiers: Pricing['service_tiers'] = {};
  for (const tier of ['flex', 'priority'] as const) {
    if (entry.serviceTiers?.[tier]) serviceTiers[tier] = { ...tokenPricing(entry, 0, tier), tiers: tierPricing(entry, tier) };
  }
  return {
    ...tokenPricing(entry, 0, null),
    tiers: tierPricing(entry, null),
    service_tiers: serviceTiers,
    web_search_per_call_usd: entry.webSearchPrice ?? null,
    source: entry.priceOrigin?.source ?? 'built_in',
    catalog: entry.priceOrigin?.catalog ?? null,
  };
}
