import { ApiError, insufficientCredits } from '../../errors.js';
import { microToCredits } from '../../store/money.js';
import type { KeyBudgetStanding } from '../../store/types.js';
import { budgetWindowAt, parseBudgetPeriod } from '../budgets.js';

/**
 * What a hold that meets a spending limit answers: the 402s of a user's credit limit and of a
 * budget, the Retry-After that comes with them, and the x-svc-budget-* headers of a hold that fits.
 */

/** The window a key with budget period `period` spends in at `now` (null for a period that is not one). */
export function windowFor(period: string, storedStart: string | null, now: Date) {
  const parsed = parseBudgetPeriod(period);
  return parsed ? budgetWindowAt(parsed, storedStart, now) : null;
}

/** The 402 of a pooled app's user at their credit limit (DESIGN §5). */
export function userLimitReached(address: string, limit: { spentMicro: number; pendingMicro: number; limitMicro: number }, heldMicro: number) {
  return insufficientCredits(
    `Credit limit reached: user ${address} may spend ${microToCredits(limit.limitMicro)} credits of this app ` +
      `and has spent ${microToCredits(limit.spentMicro)}` +
      (limit.pendingMicro > 0 ? ` (${microToCredits(limit.pendingMicro)} more held by requests in flight)` : '') +
      `; this request may cost up to ${microToCredits(heldMicro)} credits. ` +
      'Lower max_tokens, or ask the developer to raise the limit (svc api developer apps users update --credits).',
  );
}

/** Seconds until `at`, rounded up (a Retry-After never says "now" while the window still runs). */
const secondsUntil = (at: string, now: Date) => Math.max(1, Math.ceil((Date.parse(at) - now.getTime()) / 1000));
const DAY_SECONDS = 86_400;

/** The 402 of a key past its budget (DESIGN §6): which budget, what is left, and when it resets. */
export function budgetExceeded(keyId: string, budget: KeyBudgetStanding, heldMicro: number, now: Date) {
  const left = Math.max(0, budget.limitMicro - budget.spentMicro - budget.heldMicro);
  const wait = secondsUntil(budget.resetsAt, now);
  return new ApiError(
    402,
    'insufficient_credits',
    `Budget exceeded: key ${keyId} may spend ${microToCredits(budget.limitMicro)} credits per window and has spent ` +
      `${microToCredits(budget.spentMicro)}` +
      (budget.heldMicro > 0 ? ` (${microToCredits(budget.heldMicro)} more held by requests in flight)` : '') +
      `, leaving ${microToCredits(left)}; this request may cost up to ${microToCredits(heldMicro)} credits. ` +
      `The budget resets at ${budget.resetsAt}. Lower max_tokens, or raise the budget (svc api developer apps api-keys update).`,
    'budget_exceeded',
    null,
    wait <= DAY_SECONDS ? { 'retry-after': String(wait) } : {},
  );
}

/** The headers that tell a caller with a budget where it stands after this request's hold. */
export function budgetHeaders(budget: KeyBudgetStanding): Record<string, string> {
  return {
    'x-svc-budget-remaining': String(microToCredits(Math.max(0, budget.limitMicro - budget.spentMicro - budget.heldMicro))),
    'x-svc-budget-reset': budget.resetsAt,
  };
}
