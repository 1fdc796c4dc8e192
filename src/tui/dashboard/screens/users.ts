import type { AppUser } from '../api.js';
import { readNumber, readOptionalNumber } from '../fields.js';
import { createForm, type FieldSpec } from '../form.js';
import { credits } from '../format.js';
import type { ScreenAction } from '../keys.js';
import type { FormModal } from '../modal.js';
import type { DashboardSession } from '../session.js';
import type { SelectedApp } from '../state.js';
import { useCursor } from '../use-cursor.js';
import { filterRows } from '../filter.js';
import { SORT_KEYS, sortRows } from '../sorting.js';
import { dataOf } from '../use-resource.js';
import { budgetFields, budgetSentence, readBudget } from './budget.js';
import { useAppResource } from './use-app-resource.js';

const CREDITS_HINT = '1 credit = $0.01';

/** A user's budget in words: what is spent of it and when it resets, and whose it is. */
export function userBudget(user: AppUser): string {
  if (user.budget_source === null) return 'no budget';
  return `${budgetSentence(user)} (${user.budget_source === 'user' ? 'own' : 'app default'})`;
}

/** The selected app's users with their balance, limit, budget and spend: top up, set a limit or a budget, add one. */
export function useUsersScreen(session: DashboardSession, visibleRows: number) {
  const { api } = session;
  const { app, resource, reload } = useAppResource(session, (selected) => session.api.users(selected.app_uuid));
  const list = sortRows(filterRows(dataOf(resource)?.items ?? [], session.state.filters.users), SORT_KEYS.users, session.state.sorts.users);
  const cursor = useCursor(list.length, visibleRows);

  const form = (title: string, specs: FieldSpec[], submitLabel: string, save: (values: Record<string, string>) => Promise<string>): FormModal => ({
    kind: 'form',
    title,
    form: createForm(specs),
    submitLabel,
    async submit(values) {
      const said = await save(values);
      await reload();
      session.flash('info', said);
    },
  });

  const topUp = (target: SelectedApp, user: AppUser | undefined) =>
    form(
      user ? `Top up ${user.address}` : `Add a user to ${target.name}`,
      [
        ...(user ? [] : [{ name: 'address', label: 'Address', hint: 'wallet address, 0x and 40 hex digits' }]),
        { name: 'credits', label: 'Credits', hint: `credits to add (${CREDITS_HINT})` },
      ],
      'top up',
      async (values) => {
        const address = user?.address ?? values.address?.trim() ?? '';
        const after = await api.topUp(target.app_uuid, address, readNumber(values, 'credits', 'Credits'));
        return `${after.address} now has ${credits(after.credits)} credits.`;
      },
    );

  const limit = (target: SelectedApp, user: AppUser) =>
    form(
      `Credit limit of ${user.address}`,
      [{ name: 'credits', label: 'Limit', initial: user.credit_limit === null ? '' : String(user.credit_limit), hint: `most the user may spend of a pooled app (${CREDITS_HINT}); empty: no limit` }],
      'save',
      async (values) => {
        const after = await api.updateUser(target.app_uuid, user.address, { credits: readOptionalNumber(values, 'credits', 'Limit') });
        return after.credit_limit === null ? `${after.address} has no limit now.` : `${after.address} may spend up to ${credits(after.credit_limit)} credits.`;
      },
    );

  // The form starts from the user's own budget: empty means the app's default for its users.
  const budget = (target: SelectedApp, user: AppUser) => {
    const own = user.budget_source === 'user' ? user : { ...user, budget_credits: null, budget_period: null };
    return form(`Budget of ${user.address}`, budgetFields(own, 'the app’s default for its users'), 'save', async (values) => {
      const changes = readBudget(values, own);
      const after = Object.keys(changes).length > 0 ? await api.updateUser(target.app_uuid, user.address, changes) : user;
      return `Budget: ${userBudget(after)}.`;
    });
  };

  const handle = (action: ScreenAction<'users'>) => {
    if (cursor.move(action) || !app) return;
    const current = list[cursor.current()];
    if (action === 'refresh') return void reload();
    if (action === 'add') return session.openModal(topUp(app, undefined));
    if (!current) return;
    if (action === 'topUp' || action === 'select') return session.openModal(topUp(app, current));
    if (action === 'limit') return session.openModal(limit(app, current));
    if (action === 'budget') return session.openModal(budget(app, current));
    if (action === 'copy') return session.copy({ field: 'address', value: current.address });
  };

  return { app, resource, list, cursor, handle };
}
