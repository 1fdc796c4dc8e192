import type { App } from '../api.js';
import { readList, readNumber } from '../fields.js';
import type { FieldSpec } from '../form.js';
import { createForm } from '../form.js';
import type { ScreenAction } from '../keys.js';
import { credits } from '../format.js';
import { confirmModal, type FormModal, type LinkModal } from '../modal.js';
import type { DashboardSession } from '../session.js';
import { dataOf } from '../use-resource.js';
import { useCursor } from '../use-cursor.js';
import { filterRows } from '../filter.js';
import { SORT_KEYS, sortRows } from '../sorting.js';

const fields = (app?: App): FieldSpec[] => [
  { name: 'name', label: 'Name', initial: app?.name ?? '' },
  ...(app ? [] : [{ name: 'app_type', label: 'Type', options: ['standard', 'pooled_api'], hint: 'pooled_api: the app pays, capped per user' }]),
  {
    name: 'default_user_credits',
    label: 'User credits',
    initial: String(app?.default_user_credits ?? 0),
    hint: 'credits each new user starts with (1 credit = $0.01)',
  },
  {
    name: 'allowed_origins',
    label: 'Origins',
    initial: app?.allowed_origins.join(', ') ?? '',
    hint: 'CORS origins for API-key requests, comma-separated; empty: none',
  },
];

/** The Apps screen: the list is the session's (other screens need the selected app). */
export function useAppsScreen(session: DashboardSession, visibleRows: number) {
  const { api, apps } = session;
  const list = sortRows(filterRows(dataOf(apps.resource)?.items ?? [], session.state.filters.apps), SORT_KEYS.apps, session.state.sorts.apps);
  const cursor = useCursor(list.length, visibleRows);

  const form = (app?: App): FormModal => ({
    kind: 'form',
    title: app ? `Edit ${app.name}` : 'New app',
    form: createForm(fields(app)),
    submitLabel: app ? 'save' : 'create',
    async submit(values) {
      const changes = {
        name: values.name ?? '',
        default_user_credits: readNumber(values, 'default_user_credits', 'User credits'),
        allowed_origins: readList(values, 'allowed_origins'),
      };
      const saved = app
        ? await api.updateApp(app.app_uuid, changes)
        : await api.createApp({ ...changes, app_type: values.app_type === 'pooled_api' ? 'pooled_api' : 'standard' });
      await apps.reload();
      session.flash('info', app ? `Saved ${saved.name}.` : `Created ${saved.name}. Enter on it opens its keys.`);
    },
  });

  const remove = (app: App) => {
    // Said here and sent as said: the oldest other app receives the credits, as the server's `force` would.
    const heir = (dataOf(apps.resource)?.items ?? [])
      .filter((other) => other.app_uuid !== app.app_uuid)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
    const balance = credits(app.balance_credits);
    return confirmModal({
      title: `Delete the app ${app.name}?`,
      lines: [
        'Its keys stop working at once; its users and usage go with it.',
        ...(heir
          ? [`Its ${balance} credits, and its test credits, move to ${heir.name},`, 'your oldest other app.']
          : [`It is your last app: its ${balance} credits go back to the operator,`, 'and its test credits are dropped.']),
      ],
      typed: app.name,
      confirmLabel: 'delete it',
      async run() {
        await api.deleteApp(app.app_uuid, heir ? { move_balance_to: heir.app_uuid } : { force: true });
        await apps.reload();
        session.flash('info', `Deleted ${app.name}.`);
      },
    });
  };

  const fund = (app: App): FormModal => ({
    kind: 'form',
    title: `Fund ${app.name}`,
    form: createForm([{ name: 'credits', label: 'Credits', initial: '1000', hint: 'added to the app balance once paid (1 credit = $0.01)' }]),
    submitLabel: 'go to checkout',
    async submit(values): Promise<LinkModal> {
      const amount = readNumber(values, 'credits', 'Credits');
      const checkout = await api.fundApp(app.app_uuid, amount);
      return {
        kind: 'link',
        title: `Checkout for ${credits(amount)} credits to ${app.name}`,
        lines: ['Pay there; the credits reach the app once the payment is confirmed.', 'This closes by itself when the payment lands.'],
        url: checkout.url,
        checkoutId: checkout.id,
        refresh: () => void apps.reload(),
      };
    },
  });

  const handle = (action: ScreenAction<'apps'>) => {
    if (cursor.move(action)) return;
    const current = list[cursor.current()];
    if (action === 'refresh') return void apps.reload();
    if (action === 'create') return session.openModal(form());
    if (!current) return;
    if (action === 'select') {
      session.dispatch({ type: 'app', app: { app_uuid: current.app_uuid, name: current.name } });
      return session.go('keys');
    }
    if (action === 'edit') return session.openModal(form(current));
    if (action === 'fund') return session.openModal(fund(current));
    if (action === 'copy') return session.copy({ field: 'app_uuid', value: current.app_uuid });
    if (action === 'delete') return session.openModal(remove(current));
  };

  return { resource: apps.resource, list, cursor, handle, selected: () => list[cursor.current()] };
}
