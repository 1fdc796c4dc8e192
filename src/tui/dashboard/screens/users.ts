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
import { useAppResource } from './use-app-resource.js';

const CREDITS_HINT = '1 credit = $0.01';

/** The selected app's users with their balance, limit and spend: top up, set a limit, add one. */
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
        const after = await api.setLimit(target.app_uuid, user.address, readOptionalNumber(values, 'credits', 'Limit'));
        return after.credit_limit === null ? `${after.address} has no limit now.` : `${after.address} may spend up to ${credits(after.credit_limit)} credits.`;
      },
    );

  const handle = (action: ScreenAction<'users'>) => {
    if (cursor.move(action) || !app) return;
    const current = list[cursor.current()];
    if (action === 'refresh') return void reload();
    if (action === 'add') return session.openModal(topUp(app, undefined));
    if (!current) return;
    if (action === 'topUp' || action === 'select') return session.openModal(topUp(app, current));
    if (action === 'limit') return session.openModal(limit(app, current));
    if (action === 'copy') return session.copy({ field: 'address', value: current.address });
  };

  return { app, resource, list, cursor, handle };
}
