import type { ScreenAction } from '../keys.js';
import type { DashboardSession } from '../session.js';
import { filterRows } from '../filter.js';
import { SORT_KEYS, sortRows } from '../sorting.js';
import { dataOf, useResource } from '../use-resource.js';
import { useCursor } from '../use-cursor.js';

/** The Billing screen: every charge of the account, newest first; y copies a record's id. */
export function useBillingScreen(session: DashboardSession, visibleRows: number) {
  const { resource, reload } = useResource(() => session.api.billing(), [session.api]);
  const list = sortRows(filterRows(dataOf(resource)?.items ?? [], session.state.filters.billing), SORT_KEYS.billing, session.state.sorts.billing);
  const cursor = useCursor(list.length, visibleRows);

  const handle = (action: ScreenAction<'billing'>) => {
    if (cursor.move(action)) return;
    if (action === 'refresh') return void reload();
    const current = list[cursor.current()];
    if (action === 'copy' && current) session.copy({ field: 'id', value: current.id });
  };

  return { resource, list, cursor, handle, selected: () => list[cursor.current()] };
}
