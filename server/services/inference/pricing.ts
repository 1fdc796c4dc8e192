import type { ModelEntry, TokenUsage } from '../../providers/types.js';

/**
 * Prices are USD per million tokens; 1 credit = $0.01 and balances are micro-credits, so one
 * token at $P per million costs P × 100 micro-credits.
 */
const MICRO_PER_USD_PER_MILLION = 100;

export function costMicro(entry: ModelEntry, usage: TokenUsage): number {
  return Math.ceil(
    usage.inputTokens * entry.inputPrice * MICRO_PER_USD_PER_MILLION +
      usage.outputTokens * entry.outputPrice * MICRO_PER_USD_PER_MILLION,
  );
}

/** How many output tokens `availableMicro` pays for once the input is paid. */
export function affordableOutputTokens(entry: ModelEntry, inputTokens: number, availableMicro: number): number {
  const left = availableMicro - costMicro(entry, { inputTokens, outputTokens: 0 });
  if (left <= 0) return 0;
  const perToken = entry.outputPrice * MICRO_PER_USD_PER_MILLION;
  return perToken === 0 ? Number.POSITIVE_INFINITY : Math.floor(left / perToken);
}
