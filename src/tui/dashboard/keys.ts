import type { Key } from 'ink';
import { SCREENS, type ScreenId } from './screens.js';

/**
 * What a key press means. Tables, not scattered `if`s, so the help screen, the footer and the
 * behaviour cannot drift apart. Order of precedence (see session.ts): an open dialog, the help,
 * the global keys, then the list keys and the current screen's own keys.
 */
export interface Binding<A extends string> {
  action: A;
  keys: string;
  description: string;
  matches(input: string, key: Key): boolean;
}

export type GlobalAction =
  | 'exit'
  | 'quit'
  | 'help'
  | 'next'
  | 'prev'
  | 'back'
  | 'filter'
  | 'sort'
  | 'reverse'
  | 'jump'
  | 'describe'
  | 'faster'
  | 'slower'
  | 'pause'
  | ScreenId;

export const globalBindings: Binding<GlobalAction>[] = [
  { action: 'exit', keys: 'Ctrl+C', description: 'leave at once', matches: (i, k) => k.ctrl && i === 'c' },
  { action: 'quit', keys: 'q', description: 'quit', matches: (i, k) => i === 'q' && !k.ctrl && !k.meta },
  { action: 'help', keys: '?', description: 'this help', matches: (i) => i === '?' },
  { action: 'next', keys: 'Tab', description: 'next screen', matches: (_i, k) => k.tab && !k.shift },
  { action: 'prev', keys: 'Shift+Tab', description: 'previous screen', matches: (_i, k) => k.tab && k.shift },
  { action: 'back', keys: 'Esc', description: 'clear the filter, else go back', matches: (_i, k) => k.escape },
  { action: 'jump', keys: ':', description: 'go to a screen by name (:us)', matches: (i) => i === ':' },
  { action: 'filter', keys: '/', description: 'filter the rows of a list', matches: (i) => i === '/' },
  { action: 'sort', keys: 'o', description: 'sort by the next field', matches: (i, k) => i === 'o' && !k.ctrl && !k.meta },
  { action: 'reverse', keys: 'O', description: 'reverse the order', matches: (i, k) => i === 'O' && !k.ctrl && !k.meta },
  { action: 'describe', keys: 'd', description: 'describe the selected row', matches: (i, k) => i === 'd' && !k.ctrl && !k.meta },
  { action: 'faster', keys: '-', description: 'auto-refresh more often', matches: (i) => i === '-' },
  { action: 'slower', keys: '+', description: 'auto-refresh less often', matches: (i) => i === '+' },
  { action: 'pause', keys: 'Space', description: 'pause/resume auto-refresh', matches: (i, k) => i === ' ' && !k.ctrl && !k.meta },
  ...SCREENS.map(
    (screen, index): Binding<GlobalAction> => ({
      action: screen.id,
      keys: String(index + 1),
      description: screen.title,
      matches: (i, k) => i === String(index + 1) && !k.ctrl && !k.meta,
    }),
  ),
];

export type ListAction = 'up' | 'down' | 'left' | 'right' | 'pageUp' | 'pageDown' | 'first' | 'last' | 'select';

export const listBindings: Binding<ListAction>[] = [
  { action: 'up', keys: '↑', description: 'move up', matches: (_i, k) => k.upArrow },
  { action: 'down', keys: '↓', description: 'move down', matches: (_i, k) => k.downArrow },
  { action: 'left', keys: '←', description: 'move left', matches: (_i, k) => k.leftArrow },
  { action: 'right', keys: '→', description: 'move right', matches: (_i, k) => k.rightArrow },
  { action: 'pageUp', keys: 'PgUp', description: 'a page up', matches: (_i, k) => k.pageUp },
  { action: 'pageDown', keys: 'PgDn', description: 'a page down', matches: (_i, k) => k.pageDown },
  { action: 'first', keys: 'Home', description: 'first row', matches: (_i, k) => k.home },
  { action: 'last', keys: 'End', description: 'last row', matches: (_i, k) => k.end },
  { action: 'select', keys: 'Enter', description: 'select', matches: (_i, k) => k.return },
];

/** A screen's own key: one plain character, as typed. */
export function letter<A extends string>(character: string, action: A, description: string): Binding<A> {
  return { action, keys: character, description, matches: (i, k) => i === character && !k.ctrl && !k.meta };
}

export const refreshBinding = letter('r', 'refresh', 'reload');
const copyBinding = letter('y', 'copy', 'copy id');
/** k9s's delete key: `d` describes. */
const deleteBinding: Binding<'delete'> = { action: 'delete', keys: 'Ctrl+D', description: 'delete', matches: (i, k) => k.ctrl && i === 'd' };

export function actionIn<A extends string>(bindings: readonly Binding<A>[], input: string, key: Key): A | null {
  return bindings.find((binding) => binding.matches(input, key))?.action ?? null;
}

/** Each screen's own keys (the list keys and the global ones come on top). */
export const screenBindings = {
  apps: [
    letter('n', 'create', 'new app'),
    letter('e', 'edit', 'edit'),
    letter('f', 'fund', 'fund'),
    deleteBinding,
    copyBinding,
    refreshBinding,
  ],
  keys: [letter('n', 'create', 'new key'), letter('b', 'budget', 'budget & expiry'), deleteBinding, copyBinding, refreshBinding],
  users: [
    letter('t', 'topUp', 'top up'),
    letter('l', 'limit', 'set limit'),
    letter('b', 'budget', 'set budget'),
    letter('n', 'add', 'add a user'),
    copyBinding,
    refreshBinding,
  ],
  usage: [
    letter('m', 'metric', 'credits/requests'),
    letter('g', 'granularity', 'per day/hour'),
    letter('w', 'window', 'window'),
    refreshBinding,
  ],
  credits: [letter('c', 'claimDaily', 'claim daily'), letter('s', 'syncPoints', 'sync points'), refreshBinding],
  subscription: [
    letter('c', 'cancel', 'cancel'),
    letter('n', 'renew', 'renew'),
    letter('u', 'keepPlan', 'undo downgrade'),
    letter('p', 'portal', 'portal'),
    refreshBinding,
  ],
  billing: [copyBinding, refreshBinding],
  providers: [refreshBinding],
} as const satisfies Record<ScreenId, readonly Binding<string>[]>;

/** The actions a screen's handler receives: its own and the list's. */
export type ScreenAction<S extends ScreenId> = (typeof screenBindings)[S][number]['action'] | ListAction;
