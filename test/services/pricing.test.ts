import { describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import type { ModelEntry } from '../../server/providers/types.js';
import { affordableOutputTokens, assertServiceTierPriced, costMicro, mostCostMicro, pricesFor } from '../../server/services/inference/pricing.js';

/**
 * Exact integer pricing over the whole price model. 1 credit = $0.01, so a token at $P per
 * million costs P × 100 micro-credits: the expected amounts below are whole numbers.
 */
const model = (prices: Partial<ModelEntry> = {}): ModelEntry => ({
  id: 'acme/m',
  provider: 'acme',
  model: 'm',
  inputPrice: 3,
  outputPrice: 15,
  cachedInputPrice: 0.3,
  contextLength: null,
  defaultMaxOutputTokens: 1000,
  capabilities: ['chat'],
  ...prices,
});
const LONG = { tiers: [{ aboveInputTokens: 200_000, inputPrice: 6, outputPrice: 22.5, cachedInputPrice: 0.6 }] };
const TIERED = { serviceTiers: { flex: { inputPrice: 1.5, outputPrice: 7.5, cachedInputPrice: 0.15 }, priority: { inputPrice: 6, outputPrice: 30 } } };

describe('costMicro', () => {
  it('a request whose input exceeds a tier pays the tier for all of it: input, cache and output', () => {
    const entry = model(LONG);
    expect(costMicro(entry, { inputTokens: 200_000, outputTokens: 1000, cacheReadTokens: 100_000 })).toBe(100_000 * 300 + 100_000 * 30 + 1000 * 1500);
    expect(costMicro(entry, { inputTokens: 200_001, outputTokens: 1000, cacheReadTokens: 100_000 })).toBe(100_001 * 600 + 100_000 * 60 + 1000 * 2250);
  });

  it('a field a tier leaves out keeps the price below it', () => {
    const entry = model({ tiers: [{ aboveInputTokens: 10, inputPrice: 4 }] });
    expect(pricesFor(entry, 11)).toMatchObject({ input: 4, output: 15, cacheRead: 0.3 });
  });

  it('is billed at the service tier that served it: the upstream’s word over the one asked for', () => {
    const entry = model(TIERED);
    const usage = { inputTokens: 1000, outputTokens: 100 };
    expect(costMicro(entry, usage)).toBe(1000 * 300 + 100 * 1500);
    expect(costMicro(entry, usage, 'flex')).toBe(1000 * 150 + 100 * 750);
    expect(costMicro(entry, usage, 'priority')).toBe(1000 * 600 + 100 * 3000);
    expect(costMicro(entry, { ...usage, serviceTier: 'default' }, 'priority')).toBe(1000 * 300 + 100 * 1500);
    expect(costMicro(entry, { ...usage, serviceTier: 'priority' }, 'auto')).toBe(1000 * 600 + 100 * 3000);
    // A tier the model has no price for is standard: a host's own names, or flex where it is not offered.
    expect(costMicro(entry, usage, 'on_demand')).toBe(1000 * 300 + 100 * 1500);
    expect(costMicro(model(), usage, 'flex')).toBe(1000 * 300 + 100 * 1500);
  });

  it('adds each web search at its price per call, and rounds the exact sum up once', () => {
    const entry = model({ webSearchPrice: 0.01, inputPrice: 0.1, outputPrice: 0.4, cachedInputPrice: 0.025 });
    // 3 searches at $0.01 = 3 credits; 7 tokens at $0.1 and 3 at $0.4 = 70 + 120 micro; one cached at 2.5.
    expect(costMicro(entry, { inputTokens: 8, outputTokens: 3, cacheReadTokens: 1, webSearchCalls: 3 })).toBe(3_000_000 + 70 + 120 + 3);
  });
});

describe('mostCostMicro (the hold)', () => {
  it('holds at the tier the input bound falls in, else at the base prices', () => {
    const entry = model(LONG);
    expect(mostCostMicro(entry, { inputTokens: 200_000, outputTokens: 10 })).toBe(200_000 * 300 + 10 * 1500);
    expect(mostCostMicro(entry, { inputTokens: 300_000, outputTokens: 10 })).toBe(300_000 * 600 + 10 * 2250);
  });

  it('holds at the requested service tier; at priority when none or auto is asked on a model that has it', () => {
    const entry = model(TIERED);
    const bound = { inputTokens: 1000, outputTokens: 100 };
    expect(mostCostMicro(entry, { ...bound, serviceTier: 'flex' })).toBe(1000 * 150 + 100 * 750);
    expect(mostCostMicro(entry, { ...bound, serviceTier: 'default' })).toBe(1000 * 300 + 100 * 1500);
    for (const serviceTier of [undefined, null, 'auto']) expect(mostCostMicro(entry, { ...bound, serviceTier })).toBe(1000 * 600 + 100 * 3000);
    expect(mostCostMicro(model(), { ...bound, serviceTier: 'auto' })).toBe(1000 * 300 + 100 * 1500);
  });

  it('holds input at a cache write’s price when the request has breakpoints', () => {
    const entry = model({ cacheWritePrice: 3.75, cacheWrite1hPrice: 6 });
    const bound = { inputTokens: 1000, outputTokens: 0 };
    expect(mostCostMicro(entry, bound)).toBe(1000 * 300);
    expect(mostCostMicro(entry, { ...bound, cacheWrites: '5m' })).toBe(1000 * 375);
    expect(mostCostMicro(entry, { ...bound, cacheWrites: '1h' })).toBe(1000 * 600);
  });

  it('says how many output tokens a balance affords at the dearest output price', () => {
    const entry = model(LONG);
    // 300,000 input tokens at $6 = 180,000,000 micro; the rest at $22.5 (2,250 micro) a token.
    expect(affordableOutputTokens(entry, { inputTokens: 300_000 }, 180_000_000 + 2250 * 40 + 100)).toBe(40);
  });
});

describe('assertServiceTierPriced', () => {
  it('refuses priority on a model without a priority price with a 400 naming service_tier', () => {
    expect(() => assertServiceTierPriced(model(TIERED), 'priority')).not.toThrow();
    for (const tier of ['flex', 'auto', 'default', undefined]) expect(() => assertServiceTierPriced(model(), tier)).not.toThrow();
    try {
      assertServiceTierPriced(model(), 'priority');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, param: 'service_tier', code: 'service_tier_not_priced' });
    }
  });
});
