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

/** Whose a budget is, as the refusal of one with an unreadable period names it. */
export type BudgetOwner = { kind: 'key' } | { kind: 'user' | 'app_default'; appUuid: string; address: string };

/** A limit as the stores find it; a user's says whose it is (a key's is the calling key's). */
export type FoundLimit = BudgetLimit & { owner?: BudgetOwner };

const PERIODS = 'day, week, month or a duration such as 30s, 15m, 12h, 7d';

/**
 * A budget whose stored period is not one (an older server's, a hand edit): the hold fails closed
 * rather than spend as if there were no budget. server/errors.ts makes it a 402.
 */
export class UnreadableBudgetPeriodError extends Error {
  constructor(
    readonly owner: BudgetOwner,
    readonly period: string,
  ) {
    const whose =
      owner.kind === 'key'
        ? 'The budget of the key this request was made with'
        : owner.kind === 'user'
          ? `The budget of user ${owner.address} (app ${owner.appUuid})`
          : `The default budget of app ${owner.appUuid} for its users (user ${owner.address})`;
    const fix =
      owner.kind === 'key'
        ? 'svc api developer apps api-keys update --budget-period'
        : owner.kind === 'user'
          ? 'svc api developer apps users update --budget-period'
          : 'svc api developer apps update --user-budget-period';
    super(
      `${whose} has the period ${JSON.stringify(period)}, which is not one (${PERIODS}): ` +
        `requests under it are refused until the developer sets it again (${fix}).`,
    );
    this.name = 'UnreadableBudgetPeriodError';
  }
}

/**
 * The budget's standing at the hold's moment; null when there is no budget. A period that is not
 * one throws UnreadableBudgetPeriodError: no budget is never what a broken one means.
 */
export function budgetFound(
  limit: FoundLimit | null,
  stored: { windowStart: string | null; spentMicro: number },
  heldMicro: number,
  windowAt: BudgetChecks['windowAt'],
): BudgetFound | null {
  if (!limit) return null;
  const window = windowAt(limit.period, stored.windowStart);
  if (!window) throw new UnreadableBudgetPeriodError(limit.owner ?? { kind: 'key' }, limit.period);
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
export const USER_BUDGET_SELECT = `u.app_uuid, u.address, u.budget_credits_micro, u.budget_period, u.budget_window_start, u.budget_spent_micro,
  a.user_budget_credits_micro, a.user_budget_period`;

export interface UserBudgetRow {
  app_uuid: string;
  address: string;
  budget_credits_micro: number | null;
  budget_period: string | null;
  budget_window_start: string | null;
  budget_spent_micro: number;
  user_budget_credits_micro: number | null;
  user_budget_period: string | null;
}

/** The budget in force for a user: their own, else their app's default for its users (null: none). */
export function userBudgetLimit(row: UserBudgetRow): FoundLimit | null {
  const user = { appUuid: row.app_uuid, address: row.address };
  if (row.budget_credits_micro !== null && row.budget_period !== null) {
    return { limitMicro: row.budget_credits_micro, period: row.budget_period, owner: { kind: 'user', ...user } };
  }
  if (row.user_budget_credits_micro !== null && row.user_budget_period !== null) {
    return { limitMicro: row.user_budget_credits_micro, period: row.user_budget_period, owner: { kind: 'app_default', ...user } };
  }
  return null;
}
