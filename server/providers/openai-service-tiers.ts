import { scaledBy, tiersScaledBy } from './prices.js';
import type { PriceModel, ServiceTierPrices } from './types.js';

/**
 * OpenAI's service tiers, which the catalog (@pydantic/genai-prices) does not carry, by the
 * catalog's model id, as OpenAI publishes them (its pricing page and its Priority processing
 * page, read November 2026):
 *
 * - `flex` is billed at Batch API rates, half of every standard price, long-context tiers
 *   included, on the models that offer it. Elsewhere a flex request is billed standard.
 * - `priority` has a published price per model (input, cached input, output), or a multiple
 *   of the standard prices. It does not serve long context, which keeps the standard tiers.
 */
const FLEX_FACTOR = 0.5;
const FLEX_MODELS = new Set([
  'o3',
  'o4-mini',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'gpt-5.1',
  'gpt-5.2',
  'gpt-5.4',
  'gpt-5.4-mini',
  'gpt-5.5',
  'gpt-5.6-sol',
  'gpt-5.6-terra',
  'gpt-5.6-luna',
]);

type PriorityPrice = { input: number; cachedInput: number; output: number } | { factor: number };
const PRIORITY: Record<string, PriorityPrice> = {
  'gpt-4.1': { input: 3.5, cachedInput: 0.875, output: 14 },
  'gpt-4.1-mini': { input: 0.7, cachedInput: 0.175, output: 2.8 },
  'gpt-4.1-nano': { input: 0.2, cachedInput: 0.05, output: 0.8 },
  'gpt-4o': { input: 4.25, cachedInput: 2.125, output: 17 },
  'gpt-4o-mini': { input: 0.25, cachedInput: 0.125, output: 1 },
  o3: { input: 3.5, cachedInput: 0.875, output: 14 },
  'o4-mini': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-5': { input: 2.5, cachedInput: 0.25, output: 20 },
  'gpt-5-mini': { input: 0.45, cachedInput: 0.045, output: 3.6 },
  'gpt-5.1': { input: 2.5, cachedInput: 0.25, output: 20 },
  'gpt-5.2': { input: 3.5, cachedInput: 0.35, output: 28 },
  'gpt-5.4': { input: 5, cachedInput: 0.5, output: 30 },
  'gpt-5.4-mini': { input: 1.5, cachedInput: 0.15, output: 9 },
  'gpt-5.5': { factor: 2.5 },
};

function priority(price: PriorityPrice, standard: PriceModel): ServiceTierPrices {
  if ('factor' in price) return scaledBy(standard, price.factor);
  return { inputPrice: price.input, cachedInputPrice: price.cachedInput, outputPrice: price.output };
}

/** The flex and priority prices of an OpenAI model, from its standard ones; undefined where OpenAI has neither. */
export function openAIServiceTiers(catalogModel: string, standard: PriceModel): PriceModel['serviceTiers'] {
  const tiers: NonNullable<PriceModel['serviceTiers']> = {};
  if (FLEX_MODELS.has(catalogModel)) {
    tiers.flex = { ...scaledBy(standard, FLEX_FACTOR), ...(standard.tiers ? { tiers: tiersScaledBy(standard.tiers, FLEX_FACTOR) } : {}) };
  }
  const published = PRIORITY[catalogModel];
  if (published) tiers.priority = priority(published, standard);
  return tiers.flex || tiers.priority ? tiers : undefined;
}
