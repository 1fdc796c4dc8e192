import type { PriceTier, TokenPrices } from './types.js';

/** Every per-token price field, in the order they are shown. */
export const TOKEN_PRICE_FIELDS = ['inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'reasoningPrice'] as const;

/** `price × factor`, kept to the millionth of a dollar the prices are summed in. */
export const times = (price: number, factor: number) => Math.round(price * factor * 1_000_000) / 1_000_000;

/** Every price `prices` gives, times `factor` (a service tier published as a multiple of the standard prices). */
export function scaledBy<T extends TokenPrices>(prices: T, factor: number): TokenPrices {
  const out: TokenPrices = {};
  for (const field of TOKEN_PRICE_FIELDS) {
    const price = prices[field];
    if (price !== undefined) out[field] = times(price, factor);
  }
  return out;
}

/** Input tiers times `factor`, each at the same input size. */
export const tiersScaledBy = (tiers: readonly PriceTier[], factor: number): PriceTier[] =>
  tiers.map((tier) => ({ aboveInputTokens: tier.aboveInputTokens, ...scaledBy(tier, factor) }));
