import type { BudgetChecks, BudgetLimit, BudgetStanding } from './types.js';

/**
 * What a hold finds of one budget (a key's or an end user's), on either backend: the window a
 * spend now counts in and where the budget stands in it. Pure: the store reads the row and what
 * requests in flight hold, in its own atomic step, and asks this.
 */
export interface BudgetFound {
  window: { start: string; end: string; rolled: boolean };
  standing: BudgetStanding;
}

/** The budget's standing at the hold's moment; null when there is no budget (or its period is not one). */
export function budgetFound(
  limit: BudgetLimit | null,
  stored: { windowStart: string | null; spentMicro: number },
  heldMicro: number,
  windowAt: BudgetChecks['windowAt'],
): BudgetFound | null {
  if (!limit) return null;
  const window = windowAt(limit.period, stored.windowStart);
  if (!window) return null;
  return {
    window,
    standing: {
      limitMicro: limit.limitMicro,
      // A window that has rolled starts from nothing: what was spent in the old one no longer counts.
      spentMicro: window.rolled ? 0 : stored.spentMicro,
      heldMicro,
      windowStart: window.start,
      resetsAt: window.end,
    },
  };
}

/** Whether a hold of `amountMicro` fits beside what is spent and held (a spent-out budget refuses even a free request). */
export function budgetFits(found: BudgetFound, amountMicro: number): boolean {
  const { limitMicro, spentMicro, heldMicro } = found.standing;
  const left = limitMicro - spentMicro - heldMicro;
  return left > 0 && amountMicro <= left;
}

/** The standing once this hold is counted in it. */
export const withHold = (found: BudgetFound, amountMicro: number): BudgetStanding => ({
  ...found.standing,
  heldMicro: found.standing.heldMicro + amountMicro,
});

/** An end user's budget row (their own budget, their app's default, their window), as both stores select it. */
export const USER_BUDGET_SELECT = `u.budget_credits_micro, u.budget_period, u.budget_window_start, u.budget_spent_micro,
  a.user_budget_credits_micro, a.user_budget_period`;

export interface UserBudgetRow {
  budget_credits_micro: number | null;
  budget_period: string | null;
  budget_window_start: string | null;
  budget_spent_micro: number;
  user_budget_credits_micro: number | null;
  user_budget_period: string | null;
}

/** The budget in force for a user: their own, else their app's default for its users (null: none). */
export function userBudgetLimit(row: UserBudgetRow): BudgetLimit | null {
  if (row.budget_credits_micro !== null && row.budget_period !== null) return { limitMicro: row.budget_credits_micro, period: row.budget_period };
  if (row.user_budget_credits_micro !== null && row.user_budget_period !== null) {
    return { limitMicro: row.user_budget_credits_micro, period: row.user_budget_period };
  }
  return null;
}
