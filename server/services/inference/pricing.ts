import { invalidRequest } from '../../errors.js';
import type { ModelEntry, ServiceTierName, TokenPrices, TokenUsage } from '../../providers/types.js';

/**
 * Prices are USD per million tokens; 1 credit = $0.01 and balances are micro-credits, so one
 * token at $P per million costs P × 100 micro-credits. Prices are taken to the millionth of a
 * dollar per million tokens and summed as integers, so a charge is exact whatever the mix of
 * prices (no float drift between a turn's cache, input and output parts), and rounded up once.
 */
const PRICE_SCALE = 1_000_000;
/** micro-credits per token = price × 100 = (price × PRICE_SCALE) / 10,000. */
const SCALED_PER_MICRO = 10_000n;
/** A per-call price is USD per call, not per million calls: a million times a per-token one. */
const PER_CALL = 1_000_000n;

const scaled = (price: number) => BigInt(Math.round(price * PRICE_SCALE));
const roundedUp = (total: bigint) => Number((total + SCALED_PER_MICRO - 1n) / SCALED_PER_MICRO);

/** The price of each kind of token that applies to one request, defaults filled in. */
export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  reasoning: number;
}

type BasePrices = TokenPrices & { inputPrice: number; outputPrice: number };

/**
 * `base`'s prices with those `over` gives: a field `over` leaves out keeps the base's. Nothing is
 * copied when there is nothing to lay over, else only the price fields: `base` is first a whole
 * model entry, which every hold copied (#28).
 */
function overlay(base: BasePrices, over: TokenPrices | undefined): BasePrices {
  if (!over) return base;
  return {
    inputPrice: over.inputPrice ?? base.inputPrice,
    outputPrice: over.outputPrice ?? base.outputPrice,
    cachedInputPrice: over.cachedInputPrice ?? base.cachedInputPrice,
    cacheWritePrice: over.cacheWritePrice ?? base.cacheWritePrice,
    cacheWrite1hPrice: over.cacheWrite1hPrice ?? base.cacheWrite1hPrice,
    reasoningPrice: over.reasoningPrice ?? base.reasoningPrice,
  };
}

function filled(prices: BasePrices): Prices {
  return {
    input: prices.inputPrice,
    output: prices.outputPrice,
    cacheRead: prices.cachedInputPrice ?? prices.inputPrice,
    cacheWrite: prices.cacheWritePrice ?? prices.inputPrice,
    cacheWrite1h: prices.cacheWrite1hPrice ?? prices.cacheWritePrice ?? prices.inputPrice,
    reasoning: prices.reasoningPrice ?? prices.outputPrice,
  };
}

/**
 * The service tier a request is billed at: `flex` and `priority` are priced apart where the model
 * has their prices; every other value (`auto`, `default`, `scale`, a host's own) is standard.
 */
function pricedTier(entry: ModelEntry, tier: string | null | undefined): ServiceTierName | null {
  return (tier === 'flex' || tier === 'priority') && entry.serviceTiers?.[tier] ? tier : null;
}

/** The input tiers at a service tier: its own where it gives them, else the standard ones. */
export const inputTiersOf = (entry: ModelEntry, tier: ServiceTierName | null) => (tier ? entry.serviceTiers?.[tier]?.tiers : undefined) ?? entry.tiers ?? [];

/**
 * The prices of a request with `inputTokens` of input served at `tier`: the service tier's over
 * the standard ones, then the input tier the request falls in over those — for the whole request.
 */
export function pricesFor(entry: ModelEntry, inputTokens: number, tier: ServiceTierName | null = null): Prices {
  let prices = overlay(entry, tier ? entry.serviceTiers?.[tier] : undefined);
  for (const step of inputTiersOf(entry, tier)) if (inputTokens > step.aboveInputTokens) prices = overlay(prices, step);
  return filled(prices);
}


/**
 * What `usage` costs on `entry`, in micro-credits: each kind of token at its own price, at the
 * service tier that served it (the upstream's word, else the one `requestedTier` asked for) and
 * the input tier its input falls in, plus each web search at its price.
 */
export function costMicro(entry: ModelEntry, usage: TokenUsage, requestedTier?: string | null): number {
  const prices = pricesFor(entry, usage.inputTokens, pricedTier(entry, usage.serviceTier ?? requestedTier));
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const cacheWrite1h = usage.cacheWrite1hTokens ?? 0;
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  // The parts are inside the totals; an upstream that reports parts above its total pays no less.
  const plainInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite - cacheWrite1h);
  const total =
    BigInt(plainInput) * scaled(prices.input) +
    BigInt(cacheRead) * scaled(prices.cacheRead) +
    BigInt(cacheWrite) * scaled(prices.cacheWrite) +
    BigInt(cacheWrite1h) * scaled(prices.cacheWrite1h) +
    BigInt(usage.outputTokens - reasoning) * scaled(prices.output) +
    BigInt(reasoning) * scaled(prices.reasoning) +
    BigInt(usage.webSearchCalls ?? 0) * scaled(entry.webSearchPrice ?? 0) * PER_CALL;
  return roundedUp(total);
}

/**
 * The cache writes a request may cause: none unless it carries cache breakpoints (Anthropic
 * writes only at `cache_control`), and an hour's price only if one asks for `ttl: "1h"`.
 */
export type CacheWrites = 'none' | '5m' | '1h';

/** What a request can be held for: its input bound, its output budget, and what it asks for. */
export interface HoldBound {
  inputTokens: number;
  outputTokens: number;
  cacheWrites?: CacheWrites;
  /** The request's `service_tier`. */
  serviceTier?: string | null;
  /** The most web searches it may run. */
  webSearchCalls?: number;
}

/**
 * A `priority` request on a model without a priority price is refused: the upstream may serve it
 * at a premium nobody here knows, and no request is served below its cost. (A `flex` one without
 * a flex price is billed standard, which flex never exceeds.)
 */
export function assertServiceTierPriced(entry: ModelEntry, serviceTier: string | null | undefined): void {
  if (serviceTier === 'priority' && !entry.serviceTiers?.priority) {
    throw invalidRequest(
      `'${entry.id}' has no priority price on this server: send service_tier "auto" or "default", or give the model service_tiers.priority in the providers file.`,
      'service_tier',
      'service_tier_not_priced',
    );
  }
}

/**
 * The service tiers that may bill a request: the one it asks for; `default` is standard; and
 * `auto` or none may be served at priority (a project's default tier) where the model has it.
 */
function possibleTiers(entry: ModelEntry, requested: string | null | undefined): (ServiceTierName | null)[] {
  if (requested === 'flex' || requested === 'priority' || requested === 'default') return [pricedTier(entry, requested)];
  return entry.serviceTiers?.priority ? [null, 'priority'] : [null];
}

/**
 * The dearest input and output prices that can apply to a request: over the service tiers that
 * may bill it, and every input tier up to the one its input bound falls in (the real input is at
 * most the bound, so it may land in any of them). A cache write may bill input above its price.
 */
function dearestPrices(entry: ModelEntry, bound: HoldBound): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const tier of possibleTiers(entry, bound.serviceTier)) {
    // The smallest input of each input tier; those above the bound cannot apply.
    const sizes = [0, ...inputTiersOf(entry, tier).map((step) => step.aboveInputTokens + 1)];
    for (const size of sizes.filter((n) => n <= bound.inputTokens)) {
      const prices = pricesFor(entry, size, tier);
      const writes = { none: [], '5m': [prices.cacheWrite], '1h': [prices.cacheWrite, prices.cacheWrite1h] }[bound.cacheWrites ?? 'none'];
      input = Math.max(input, prices.input, prices.cacheRead, ...writes);
      output = Math.max(output, prices.output, prices.reasoning);
    }
  }
  return { input, output };
}

/** The window assumed for a model whose context length nobody gave: the largest offered today. */
const UNKNOWN_WINDOW = 1_000_000;

/**
 * The input a request may be billed for: its own, and each web search's results. A search's
 * results are input of the step that reads them (Anthropic bills them as input tokens); a search
 * adds at most one step, and a step reads at most the model's window.
 */
function heldInput(entry: ModelEntry, bound: HoldBound): HoldBound {
  const searches = bound.webSearchCalls ?? 0;
  return searches > 0 ? { ...bound, inputTokens: bound.inputTokens + searches * (entry.contextLength ?? UNKNOWN_WINDOW) } : bound;
}

/**
 * The most a request can cost: every input token (its web searches' results included) and every
 * output token at the dearest price that can apply, and every web search's fee. This is what it
 * is held for.
 */
export function mostCostMicro(entry: ModelEntry, asked: HoldBound): number {
  const bound = heldInput(entry, asked);
  const dearest = dearestPrices(entry, bound);
  return roundedUp(
    BigInt(bound.inputTokens) * scaled(dearest.input) +
      BigInt(bound.outputTokens) * scaled(dearest.output) +
      BigInt(bound.webSearchCalls ?? 0) * scaled(entry.webSearchPrice ?? 0) * PER_CALL,
  );
}

/** How many output tokens `availableMicro` pays for once the input is paid. */
export function affordableOutputTokens(entry: ModelEntry, bound: Omit<HoldBound, 'outputTokens'>, availableMicro: number): number {
  const left = availableMicro - mostCostMicro(entry, { ...bound, outputTokens: 0 });
  if (left <= 0) return 0;
  const perToken = dearestPrices(entry, heldInput(entry, { ...bound, outputTokens: 0 })).output * 100;
  return perToken === 0 ? Number.POSITIVE_INFINITY : Math.floor(left / perToken);
}
