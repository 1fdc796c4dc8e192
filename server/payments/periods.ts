import type { BillingInterval } from '../store/types.js';

/**
 * The end of a period that starts at `start`: the same day and time one month or year on,
 * the last day of the month when that day does not exist (Jan 31 → Feb 28), as processors do.
 */
export function periodEnd(start: Date, interval: BillingInterval): Date {
  const months = interval === 'month' ? 1 : 12;
  const target = new Date(start);
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(start.getUTCDate(), lastDay));
  return target;
}

/** The share of a period still to run at `now`, between 0 and 1. */
export function remainingShare(start: string, end: string, now: Date): number {
  const total = Date.parse(end) - Date.parse(start);
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (Date.parse(end) - now.getTime()) / total));
}

/** A plan's amount per period (credits or cents) and the period it runs in. */
export interface PeriodAmount {
  amount: number;
  start: string;
  end: string;
}

/**
 * What changing plans at `now` is worth, as processors prorate: the new plan's amount for what is
 * left of its period, less the old plan's for what is left unused of its own; never below nothing.
 * The same rule prices an upgrade (in cents, the sandbox) and the credits it grants.
 */
export function prorate(from: PeriodAmount, to: PeriodAmount, now: Date): number {
  return Math.max(0, to.amount * remainingShare(to.start, to.end, now) - from.amount * remainingShare(from.start, from.end, now));
}
