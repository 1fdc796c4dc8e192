import { invalidRequest } from '../errors.js';
import { creditsToMicro } from '../store/money.js';
import type { BudgetLimit } from '../store/types.js';

/**
 * Budget windows, of keys and of end users (ARCHITECTURE.md §6): pure arithmetic over the injected clock's time, so a window rolls
 * exactly when the clock passes its end, at the moment a request is held, with no job to miss it.
 *
 * A period is a calendar window in UTC (`day`, `week` starting Monday, `month`), or a duration
 * (`30s`, `15m`, `12h`, `7d`) whose window starts at the first spend after the last one ended.
 */

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([1-9][0-9]{0,5})([smhd])$/;

export type BudgetPeriod = { kind: 'calendar'; unit: 'day' | 'week' | 'month' } | { kind: 'duration'; ms: number };

/** The period a stored or requested `budget_period` stands for; null when it is not one. */
export function parseBudgetPeriod(text: string): BudgetPeriod | null {
  if (text === 'day' || text === 'week' || text === 'month') return { kind: 'calendar', unit: text };
  const match = DURATION.exec(text);
  if (!match) return null;
  return { kind: 'duration', ms: Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] };
}

/** The calendar window (UTC) holding `now`. */
function calendarWindow(unit: 'day' | 'week' | 'month', now: Date): { start: Date; end: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (unit === 'month') return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
  // getUTCDay: Sunday is 0; weeks start on Monday (ISO 8601).
  const back = unit === 'week' ? (now.getUTCDay() + 6) % 7 : 0;
  const span = unit === 'week' ? 7 : 1;
  return { start: new Date(Date.UTC(y, m, d - back)), end: new Date(Date.UTC(y, m, d - back + span)) };
}

export interface BudgetWindow {
  /** RFC 3339 start of the window a spend at `now` counts in. */
  start: string;
  end: string;
  /** True when this is not the stored window: what was spent in the stored one no longer counts. */
  rolled: boolean;
}

/**
 * The window a spend at `now` counts in, given the start of the window the key last spent in
 * (null: never). A duration window that has ended is replaced by one starting now.
 */
export function budgetWindowAt(period: BudgetPeriod, storedStart: string | null, now: Date): BudgetWindow {
  if (period.kind === 'calendar') {
    const { start, end } = calendarWindow(period.unit, now);
    const startText = start.toISOString();
    return { start: startText, end: end.toISOString(), rolled: storedStart !== startText };
  }
  if (storedStart !== null) {
    const end = Date.parse(storedStart) + period.ms;
    if (now.getTime() < end) return { start: storedStart, end: new Date(end).toISOString(), rolled: false };
  }
  return { start: now.toISOString(), end: new Date(now.getTime() + period.ms).toISOString(), rolled: true };
}

/**
 * What a key's or user's budget looks like at `now` to someone reading it (list, get, GET /key): what is
 * spent in the current window and when it resets. A duration window that has ended has spent
 * nothing and no reset time: the next one starts at the next spend.
 */
export function budgetStanding(
  budget: { period: string; windowStart: string | null; spentMicro: number },
  now: Date,
): { spentMicro: number; resetsAt: string | null } {
  const period = parseBudgetPeriod(budget.period);
  if (!period) return { spentMicro: budget.spentMicro, resetsAt: null };
  const window = budgetWindowAt(period, budget.windowStart, now);
  if (window.rolled) return { spentMicro: 0, resetsAt: period.kind === 'calendar' ? window.end : null };
  return { spentMicro: budget.spentMicro, resetsAt: window.end };
}

/** A budget as create and update bodies give it: amount in credits (null: none) and period. */
export interface BudgetInput {
  credits?: number | null | undefined;
  period?: string | undefined;
}

/** A budget without a period is a monthly one ("this key may spend $50 a month"). */
const DEFAULT_PERIOD = 'month';

/**
 * The budget a create or update body asks for, given the current one (null: none): undefined when
 * the body leaves it as it is, null when it removes it. `fields` names the body's fields in the
 * 400s (a key's `budget_credits`, an app's `user_budget_credits`).
 */
export function budgetChange(
  input: BudgetInput,
  current: BudgetLimit | null,
  fields: { credits: string; period: string },
): BudgetLimit | null | undefined {
  if (input.credits === null) {
    if (input.period !== undefined) {
      throw invalidRequest(`${fields.period} cannot be set while ${fields.credits} removes the budget.`, fields.period);
    }
    return null;
  }
  if (input.credits === undefined && input.period === undefined) return undefined;
  if (input.credits === undefined && !current) {
    throw invalidRequest(`${fields.period} needs ${fields.credits}: there is no budget to change the period of.`, fields.credits);
  }
  // The contract checks the period too; this keeps any other way in from storing one a hold would refuse.
  if (input.period !== undefined && !parseBudgetPeriod(input.period)) {
    throw invalidRequest(`${fields.period} ${JSON.stringify(input.period)} is not a period: day, week, month or a duration such as 30s, 15m, 12h, 7d.`, fields.period);
  }
  return {
    limitMicro: input.credits === undefined ? (current?.limitMicro ?? 0) : creditsToMicro(input.credits),
    period: input.period ?? current?.period ?? DEFAULT_PERIOD,
  };
}
