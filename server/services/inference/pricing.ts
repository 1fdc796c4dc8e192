import type { ModelEntry, TokenUsage } from '../../providers/types.js';

/**
 * Prices are USD per million tokens; 1 credit = $0.01 and balances are micro-credits, so one
 * token at $P per million costs P × 100 micro-credits. Prices are taken to the millionth of a
 * dollar per million tokens and summed as integers, so a charge is exact whatever the mix of
 * prices (no float drift between a turn's cache, input and output parts), and rounded up once.
 */
const PRICE_SCALE = 1_000_000;
/** micro-credits per token = price × 100 = (price × PRICE_SCALE) / 10,000. */
const SCALED_PER_MICRO = 10_000n;

const scaled = (price: number) => BigInt(Math.round(price * PRICE_SCALE));

/** The price of each kind of token of a model, defaults filled in. */
export function pricesOf(entry: ModelEntry) {
  return {
    input: entry.inputPrice,
    output: entry.outputPrice,
    cacheRead: entry.cachedInputPrice ?? entry.inputPrice,
    cacheWrite: entry.cacheWritePrice ?? entry.inputPrice,
    cacheWrite1h: entry.cacheWrite1hPrice ?? entry.cacheWritePrice ?? entry.inputPrice,
    reasoning: entry.reasoningPrice ?? entry.outputPrice,
  };
}

/** What `usage` costs on `entry`, in micro-credits: each kind of token at its own price. */
export function costMicro(entry: ModelEntry, usage: TokenUsage): number {
  const prices = pricesOf(entry);
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
    BigInt(reasoning) * scaled(prices.reasoning);
  return roundedUp(total);
}

const roundedUp = (total: bigint) => Number((total + SCALED_PER_MICRO - 1n) / SCALED_PER_MICRO);

/**
 * The cache writes a request may cause: none unless it carries cache breakpoints (Anthropic
 * writes only at `cache_control`), and an hour's price only if one asks for `ttl: "1h"`.
 */
export type CacheWrites = 'none' | '5m' | '1h';

/**
 * The most `inputTokens` + `outputTokens` can cost: every input token at the dearest input price
 * that may apply (a cache write costs more than plain input), every output token at the dearest
 * output price. This is what a request is held for.
 */
export function mostCostMicro(entry: ModelEntry, inputTokens: number, outputTokens: number, writes: CacheWrites = 'none'): number {
  const prices = pricesOf(entry);
  const writePrices = { none: [], '5m': [prices.cacheWrite], '1h': [prices.cacheWrite, prices.cacheWrite1h] }[writes];
  const dearestInput = Math.max(prices.input, prices.cacheRead, ...writePrices);
  const dearestOutput = Math.max(prices.output, prices.reasoning);
  return roundedUp(BigInt(inputTokens) * scaled(dearestInput) + BigInt(outputTokens) * scaled(dearestOutput));
}

/** How many output tokens `availableMicro` pays for once the input is paid. */
export function affordableOutputTokens(entry: ModelEntry, inputTokens: number, availableMicro: number, writes: CacheWrites = 'none'): number {
  const left = availableMicro - mostCostMicro(entry, inputTokens, 0, writes);
  if (left <= 0) return 0;
  const prices = pricesOf(entry);
  const perToken = Math.max(prices.output, prices.reasoning) * 100;
  return perToken === 0 ? Number.POSITIVE_INFINITY : Math.floor(left / perToken);
}
