/**
 * Credits are shown as decimals (1 credit = $0.01) but kept as integer micro-credits, so that no
 * sum in the ledger ever meets a floating-point error.
 */
export const MICRO_PER_CREDIT = 1_000_000;

export function creditsToMicro(credits: number): number {
  const micro = Math.round(credits * MICRO_PER_CREDIT);
  if (!Number.isSafeInteger(micro)) throw new RangeError(`credits out of range: ${credits}`);
  return micro;
}

export function microToCredits(micro: number): number {
  return micro / MICRO_PER_CREDIT;
}
