import { FieldError } from '../errors.js';
import { readOptionalNumber } from '../fields.js';
import type { FieldSpec } from '../form.js';
import { credits, minute } from '../format.js';

/** A budget as keys and users show it (amounts in credits; null: no budget). */
export interface BudgetView {
  budget_credits: number | null;
  budget_period: string | null;
  budget_spent_credits: number | null;
  budget_resets_at: string | null;
}

export const PERIOD_HINT = 'day, week, month (UTC) or a duration: 30s, 15m, 12h, 7d';

/** The table cell: spent of the budget, and its period ("0.5/20 day"); "—" without one. */
export function budgetCell(view: BudgetView): string {
  if (view.budget_credits === null) return '—';
  return `${credits(view.budget_spent_credits ?? 0)}/${credits(view.budget_credits)} ${view.budget_period ?? ''}`.trim();
}

/** The selected row's budget in a short sentence (it fits 80 columns): what is spent, of what, and when it resets. */
export function budgetSentence(view: BudgetView): string {
  if (view.budget_credits === null) return 'no budget';
  const resets = view.budget_resets_at ? `, resets ${minute(view.budget_resets_at)}` : ', window starts at next spend';
  return `${credits(view.budget_spent_credits ?? 0)} of ${credits(view.budget_credits)} spent per ${view.budget_period}${resets}`;
}

/** The form fields of a budget, filled with the current one. */
export function budgetFields(view: BudgetView, emptyMeans: string): FieldSpec[] {
  return [
    {
      name: 'budget_credits',
      label: 'Budget',
      initial: view.budget_credits === null ? '' : String(view.budget_credits),
      hint: `most it may spend per period, in credits (1 credit = $0.01); empty: ${emptyMeans}`,
    },
    { name: 'budget_period', label: 'Period', initial: view.budget_period ?? 'month', hint: PERIOD_HINT },
  ];
}

/**
 * The budget a form asks for, as an update body: only what changed (a changed budget starts a
 * fresh window, so an untouched one is not sent), null removing it.
 */
export function readBudget(values: Record<string, string>, view: BudgetView): { budget_credits?: number | null; budget_period?: string } {
  const amount = readOptionalNumber(values, 'budget_credits', 'Budget');
  const period = (values.budget_period ?? '').trim();
  if (amount === null) return view.budget_credits === null ? {} : { budget_credits: null };
  if (period === '') throw new FieldError('budget_period', `Give a period: ${PERIOD_HINT}.`);
  if (amount === view.budget_credits && period === view.budget_period) return {};
  return { budget_credits: amount, budget_period: period };
}
