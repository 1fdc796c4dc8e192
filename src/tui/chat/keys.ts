import type { Key } from 'ink';

/** What a key press means in the chat. One table, so help and behaviour cannot drift apart. */
export type ChatKeyAction =
  | 'submit'
  | 'newline'
  | 'cancel'
  | 'interrupt'
  | 'exit'
  | 'historyPrev'
  | 'historyNext'
  | 'left'
  | 'right'
  | 'home'
  | 'end'
  | 'backspace'
  | 'deleteWord'
  | 'clearLine'
  | 'search'
  | 'complete';

export interface KeyBinding {
  action: ChatKeyAction;
  keys: string;
  description: string;
  matches(input: string, key: Key): boolean;
}

export const keyBindings: KeyBinding[] = [
  { action: 'newline', keys: 'Ctrl+J, Alt+Enter', description: 'new line', matches: (i, k) => (k.ctrl && i === 'j') || i === '\n' || (k.return && k.meta) },
  { action: 'submit', keys: 'Enter', description: 'send', matches: (_i, k) => k.return },
  { action: 'cancel', keys: 'Esc', description: 'cancel the answer', matches: (_i, k) => k.escape },
  { action: 'interrupt', keys: 'Ctrl+C', description: 'cancel; twice on an empty prompt exits', matches: (i, k) => k.ctrl && i === 'c' },
  { action: 'exit', keys: 'Ctrl+D', description: 'exit', matches: (i, k) => k.ctrl && i === 'd' },
  { action: 'historyPrev', keys: '↑', description: 'previous input', matches: (_i, k) => k.upArrow },
  { action: 'historyNext', keys: '↓', description: 'next input', matches: (_i, k) => k.downArrow },
  { action: 'left', keys: '←', description: 'move left', matches: (_i, k) => k.leftArrow },
  { action: 'right', keys: '→', description: 'move right', matches: (_i, k) => k.rightArrow },
  { action: 'home', keys: 'Ctrl+A', description: 'start of line', matches: (i, k) => k.ctrl && i === 'a' },
  { action: 'end', keys: 'Ctrl+E', description: 'end of line', matches: (i, k) => k.ctrl && i === 'e' },
  { action: 'deleteWord', keys: 'Ctrl+W', description: 'delete the previous word', matches: (i, k) => k.ctrl && i === 'w' },
  { action: 'clearLine', keys: 'Ctrl+U', description: 'clear the input', matches: (i, k) => k.ctrl && i === 'u' },
  { action: 'search', keys: 'Ctrl+R', description: 'search the input history (kept across sessions)', matches: (i, k) => k.ctrl && i === 'r' },
  { action: 'backspace', keys: 'Backspace', description: 'delete', matches: (_i, k) => k.backspace || k.delete },
  { action: 'complete', keys: 'Tab', description: 'complete a slash command, or the path after /attach', matches: (_i, k) => k.tab },
];

export function actionFor(input: string, key: Key): ChatKeyAction | null {
  return keyBindings.find((binding) => binding.matches(input, key))?.action ?? null;
}
