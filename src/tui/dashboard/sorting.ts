import type { ApiKey, App, AppUser, BillingRecord } from './api.js';

/** One way to order a list screen's rows: a name for the footer and the value compared. */
export interface SortKey<T> {
  name: string;
  of(item: T): string | number;
}

/** How a screen is sorted: which of its keys, which way. */
export interface SortState {
  index: number;
  descending: boolean;
}

/** What `o` cycles through on each list screen (numbers and dates read best newest/biggest first with O). */
export const SORT_KEYS = {
  apps: [
    { name: 'name', of: (app: App) => app.name.toLowerCase() },
    { name: 'balance', of: (app: App) => app.balance_credits },
    { name: 'user credits', of: (app: App) => app.default_user_credits },
    { name: 'created', of: (app: App) => app.created_at },
  ],
  keys: [
    { name: 'name', of: (key: ApiKey) => key.name.toLowerCase() },
    { name: 'role', of: (key: ApiKey) => key.role },
    { name: 'created', of: (key: ApiKey) => key.created_at },
    { name: 'last used', of: (key: ApiKey) => key.last_used_at ?? '' },
  ],
  users: [
    { name: 'address', of: (user: AppUser) => user.address.toLowerCase() },
    { name: 'balance', of: (user: AppUser) => user.credits },
    { name: 'spent', of: (user: AppUser) => user.spent_credits },
    { name: 'joined', of: (user: AppUser) => user.created_at },
  ],
  billing: [
    { name: 'date', of: (record: BillingRecord) => record.created_at },
    { name: 'amount', of: (record: BillingRecord) => record.amount_usd },
    { name: 'status', of: (record: BillingRecord) => record.status },
  ],
} as const;

export type ListScreen = keyof typeof SORT_KEYS;

export function isListScreen(screen: string): screen is ListScreen {
  return screen in SORT_KEYS;
}

/** `o`: no sort → the first key → … → the last → no sort (the server's order). */
export function nextSort(screen: ListScreen, current: SortState | undefined): SortState | undefined {
  const next = current === undefined ? 0 : current.index + 1;
  return next < SORT_KEYS[screen].length ? { index: next, descending: false } : undefined;
}

/** The rows in the chosen order; stable, so equal rows keep the server's order. */
export function sortRows<T>(items: readonly T[], keys: readonly SortKey<T>[], sort: SortState | undefined): T[] {
  const key = sort ? keys[sort.index] : undefined;
  if (!sort || !key) return [...items];
  const sign = sort.descending ? -1 : 1;
  return [...items].sort((a, b) => {
    const x = key.of(a);
    const y = key.of(b);
    return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
  });
}

/** What the footer says about the order, or nothing for the server's. */
export function describeSort(screen: ListScreen, sort: SortState | undefined): string {
  const key = sort ? SORT_KEYS[screen][sort.index] : undefined;
  return key && sort ? `sorted by ${key.name} ${sort.descending ? '▼' : '▲'}` : '';
}
