import { ApiError, insufficientCredits } from '../../errors.js';
import { microToCredits } from '../../store/money.js';
import type { BudgetKind, BudgetStanding, HeldBudgets } from '../../store/types.js';
import { budgetWindowAt, parseBudgetPeriod } from '../budgets.js';

/**
 * What a hold that meets a spending limit answers: the 402s of a user's credit limit and of a
 * budget, the Retry-After that comes with them, and the x-svc-budget-* headers of a hold that fits.
 */

/** The window a budget with period `period` spends in at `now` (null for a period that is not one). */
export function windowFor(period: string, storedStart: string | null, now: Date) {
  const parsed = parseBudgetPeriod(period);
  return parsed ? budgetWindowAt(parsed, storedStart, now) : null;
}

/** The 402 of a pooled app's user at their credit limit (ARCHITECTURE.md §5). */
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

/** What is left of a budget beside what is spent and held in its window. */
const leftOf = (budget: BudgetStanding) => Math.max(0, budget.limitMicro - budget.spentMicro - budget.heldMicro);

/** How each budget's 402 names it, and where it is raised. */
const BUDGET_OWNERS: Record<BudgetKind, { name: string; raise: string }> = {
  key: { name: 'key', raise: 'raise the budget (svc api developer apps api-keys update)' },
  user: { name: 'user', raise: 'ask the developer to raise the budget (svc api developer apps users update --budget-credits)' },
};

/**
 * The 402 of a budget that cannot cover the request (ARCHITECTURE.md §6): which budget (the key's or the
 * user's, with its id), what is left, and when it resets.
 */
export function budgetExceeded(kind: BudgetKind, subject: string, budget: BudgetStanding, heldMicro: number, now: Date) {
  const wait = secondsUntil(budget.resetsAt, now);
  const owner = BUDGET_OWNERS[kind];
  return new ApiError(
    402,
    'insufficient_credits',
    `Budget exceeded: ${owner.name} ${subject} may spend ${microToCredits(budget.limitMicro)} credits per window and has spent ` +
      `${microToCredits(budget.spentMicro)}` +
      (budget.heldMicro > 0 ? ` (${microToCredits(budget.heldMicro)} more held by requests in flight)` : '') +
      `, leaving ${microToCredits(leftOf(budget))}; this request may cost up to ${microToCredits(heldMicro)} credits. ` +
      `The ${owner.name} budget resets at ${budget.resetsAt}. Lower max_tokens, or ${owner.raise}.`,
    'budget_exceeded',
    null,
    wait <= DAY_SECONDS ? { 'retry-after': String(wait) } : {},
  );
}

/**
 * The headers that tell a caller with a budget where it stands after this request's hold: of the
 * budgets that apply, the tightest (the least left); none when no budget applies.
 */
export function budgetHeaders(budgets: HeldBudgets): Record<string, string> {
  const tightest = Object.values(budgets).reduce<BudgetStanding | null>(
    (least, budget) => (least === null || leftOf(budget) < leftOf(least) ? budget : least),
    null,
  );
  if (!tightest) return {};
  return {
    'x-svc-budget-remaining': String(microToCredits(leftOf(tightest))),
    'x-svc-budget-reset': tightest.resetsAt,
  };
}
