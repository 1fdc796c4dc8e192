import { KEY_ROLES } from '../../../contract/operation.js';
import type { ApiKey } from '../api.js';
import { createForm } from '../form.js';
import type { ScreenAction } from '../keys.js';
import { confirmModal, type FormModal } from '../modal.js';
import { day } from '../format.js';
import type { DashboardSession } from '../session.js';
import type { SelectedApp } from '../state.js';
import { useCursor } from '../use-cursor.js';
import { filterRows } from '../filter.js';
import { SORT_KEYS, sortRows } from '../sorting.js';
import { dataOf } from '../use-resource.js';
import { budgetFields, budgetSentence, readBudget } from './budget.js';
import { useAppResource } from './use-app-resource.js';

/** A key's budget and expiry in words (the Keys screen's line for the selected key, and the flash after a change). */
export function keyLimits(key: ApiKey): string {
  return `${budgetSentence(key)} · ${key.expires_at ? `expires ${day(key.expires_at)}` : 'never expires'}`;
}

const roleOf = (value: string | undefined) => KEY_ROLES.find((role) => role === value) ?? 'inference';

/** The selected app's API keys: create one (its secret is shown once), set its budget and expiry, delete one. */
export function useKeysScreen(session: DashboardSession, visibleRows: number) {
  const { api } = session;
  const { app, resource, reload } = useAppResource(session, (selected) => session.api.keys(selected.app_uuid));
  const list = sortRows(filterRows(dataOf(resource)?.items ?? [], session.state.filters.keys), SORT_KEYS.keys, session.state.sorts.keys);
  const cursor = useCursor(list.length, visibleRows);

  const create = (target: SelectedApp): FormModal => ({
    kind: 'form',
    title: `New key for ${target.name}`,
    form: createForm([
      { name: 'name', label: 'Name', initial: 'default' },
      { name: 'is_test', label: 'Kind', options: ['live', 'test'], hint: 'test keys reach only the sandbox and never spend money' },
      {
        name: 'role',
        label: 'Role',
        options: [...KEY_ROLES],
        hint: 'inference: chat and the app’s own balance · read_only: reads everything · admin: everything (live only)',
      },
    ]),
    submitLabel: 'create',
    async submit(values) {
      const created = await api.createKey(target.app_uuid, {
        name: values.name ?? '',
        is_test: values.is_test === 'test',
        role: roleOf(values.role),
      });
      await reload();
      return {
        kind: 'secret',
        title: `Key ${created.name} (${created.is_test ? 'test' : 'live'}, ${created.role}) for ${target.name}`,
        secret: created.secret,
      };
    },
  });

  const limits = (target: SelectedApp, key: ApiKey): FormModal => ({
    kind: 'form',
    title: `Budget and expiry of ${key.name} (${key.prefix})`,
    form: createForm([
      ...budgetFields(key, 'no budget'),
      { name: 'expires_at', label: 'Expires', initial: key.expires_at ?? '', hint: 'when the key stops working, e.g. 2026-12-31T23:59:59Z; empty: never' },
    ]),
    submitLabel: 'save',
    async submit(values) {
      const expires = (values.expires_at ?? '').trim() || null;
      const changes = { ...readBudget(values, key), ...(expires === key.expires_at ? {} : { expires_at: expires }) };
      const after = Object.keys(changes).length > 0 ? await api.updateKey(target.app_uuid, key.key_id, changes) : key;
      await reload();
      session.flash('info', `${after.name}: ${keyLimits(after)}.`);
    },
  });

  const remove = (target: SelectedApp, key: ApiKey) =>
    confirmModal({
      title: `Delete the key ${key.name} (${key.prefix})?`,
      lines: [
        ...(api.signedInWith(key)
          ? ['This is the key this dashboard signs in with: it stops working too, and you must log in again.']
          : []),
        'Anything that uses it stops working on its next request.',
      ],
      confirmLabel: 'delete it',
      async run() {
        await api.deleteKey(target.app_uuid, key.key_id);
        await reload();
        session.flash('info', `Deleted the key ${key.name}.`);
      },
    });

  const handle = (action: ScreenAction<'keys'>) => {
    if (cursor.move(action) || !app) return;
    const current = list[cursor.current()];
    if (action === 'refresh') return void reload();
    if (action === 'create') return session.openModal(create(app));
    if (action === 'delete' && current) return session.openModal(remove(app, current));
    if (action === 'budget' && current) return session.openModal(limits(app, current));
    if (action === 'copy' && current) return session.copy({ field: 'key_id', value: current.key_id });
  };

  return { app, resource, list, cursor, handle };
}
