import type { Key } from 'ink';

/**
 * Every key the chat reads, in tables: the prompt's, a picker's and an approval's. Components
 * ask here what a key means and draw their hints from here, so help and behaviour cannot drift apart.
 */
export interface KeyBinding<Action extends string> {
  action: Action;
  keys: string;
  description: string;
  matches(input: string, key: Key): boolean;
}

/** The first binding of `table` a key press matches. */
export function bindingFor<Action extends string>(table: readonly KeyBinding<Action>[], input: string, key: Key): Action | null {
  return table.find((binding) => binding.matches(input, key))?.action ?? null;
}

const ctrl = (letter: string) => (input: string, key: Key) => key.ctrl && input === letter;
/** Alt+letter: the terminal sends ESC and the letter (Ink reports it as meta). */
const alt = (letter: string) => (input: string, key: Key) => key.meta && !key.ctrl && input === letter;

/** What a key press means at the prompt. */
export type ChatKeyAction =
  | 'submit'
  | 'newline'
  | 'cancel'
  | 'interrupt'
  | 'exit'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'wordLeft'
  | 'wordRight'
  | 'home'
  | 'end'
  | 'backspace'
  | 'deleteWord'
  | 'killToEnd'
  | 'killToStart'
  | 'search'
  | 'complete'
  | 'externalEditor'
  | 'chord';

/** Bindings that take effect only right after Ctrl+X (a chord, as in bash and emacs). */
export const chordBindings: KeyBinding<ChatKeyAction>[] = [
  { action: 'externalEditor', keys: 'Ctrl+X Ctrl+E', description: 'edit the draft in $VISUAL or $EDITOR', matches: ctrl('e') },
];

export const keyBindings: KeyBinding<ChatKeyAction>[] = [
  { action: 'newline', keys: 'Ctrl+J, Alt+Enter', description: 'new line', matches: (i, k) => (k.ctrl && i === 'j') || i === '\n' || (k.return && k.meta) },
  { action: 'submit', keys: 'Enter', description: 'send', matches: (_i, k) => k.return },
  { action: 'cancel', keys: 'Esc', description: 'cancel the answer', matches: (_i, k) => k.escape },
  { action: 'interrupt', keys: 'Ctrl+C', description: 'cancel; clears the prompt; twice on an empty prompt exits', matches: ctrl('c') },
  { action: 'exit', keys: 'Ctrl+D', description: 'exit', matches: ctrl('d') },
  { action: 'up', keys: '↑', description: 'line above; on the first line, previous input', matches: (_i, k) => k.upArrow && !k.meta },
  { action: 'down', keys: '↓', description: 'line below; on the last line, next input', matches: (_i, k) => k.downArrow && !k.meta },
  { action: 'wordLeft', keys: 'Alt+←, Alt+B', description: 'word left', matches: (i, k) => ((k.leftArrow && (k.meta || k.ctrl)) || alt('b')(i, k)) },
  { action: 'wordRight', keys: 'Alt+→, Alt+F', description: 'word right', matches: (i, k) => ((k.rightArrow && (k.meta || k.ctrl)) || alt('f')(i, k)) },
  { action: 'left', keys: '←', description: 'move left', matches: (_i, k) => k.leftArrow },
  { action: 'right', keys: '→', description: 'move right', matches: (_i, k) => k.rightArrow },
  { action: 'home', keys: 'Ctrl+A, Home', description: 'start of line', matches: (i, k) => ctrl('a')(i, k) || k.home },
  { action: 'end', keys: 'Ctrl+E, End', description: 'end of line', matches: (i, k) => ctrl('e')(i, k) || k.end },
  { action: 'deleteWord', keys: 'Ctrl+W, Alt+Backspace', description: 'delete the previous word', matches: (i, k) => ctrl('w')(i, k) || ((k.backspace || k.delete) && k.meta) },
  { action: 'killToEnd', keys: 'Ctrl+K', description: 'delete to the end of the line', matches: ctrl('k') },
  { action: 'killToStart', keys: 'Ctrl+U', description: 'delete to the start of the line', matches: ctrl('u') },
  { action: 'search', keys: 'Ctrl+R', description: 'search the input history (kept across sessions)', matches: ctrl('r') },
  { action: 'externalEditor', keys: 'Ctrl+G', description: 'edit the draft in $VISUAL or $EDITOR', matches: ctrl('g') },
  { action: 'chord', keys: 'Ctrl+X', description: 'starts Ctrl+X Ctrl+E', matches: ctrl('x') },
  { action: 'backspace', keys: 'Backspace', description: 'delete', matches: (_i, k) => k.backspace || k.delete },
  { action: 'complete', keys: 'Tab', description: 'complete a slash command, or the path after /attach', matches: (_i, k) => k.tab },
];

/** What a key means at the prompt; `afterChord`: the key before it was Ctrl+X. */
export function actionFor(input: string, key: Key, afterChord = false): ChatKeyAction | null {
  return bindingFor(afterChord ? chordBindings : keyBindings, input, key);
}

/** What a key does while a list is open (/model, /resume, Ctrl+R); anything else typed filters it. */
export type PickerKeyAction = 'pick' | 'close' | 'up' | 'down';

export const pickerKeyBindings: KeyBinding<PickerKeyAction>[] = [
  { action: 'up', keys: '↑', description: 'previous', matches: (i, k) => k.upArrow || ctrl('p')(i, k) },
  { action: 'down', keys: '↓', description: 'next', matches: (i, k) => k.downArrow || ctrl('n')(i, k) },
  { action: 'pick', keys: 'Enter', description: 'picks', matches: (_i, k) => k.return },
  // Ctrl+C closes a list as Esc does: it always gets the user out of where they are.
  { action: 'close', keys: 'Esc', description: 'closes', matches: (i, k) => k.escape || ctrl('c')(i, k) },
];

/** What a key answers to a tool's request to write. */
export type ApprovalKeyAction = 'once' | 'session' | 'deny' | 'interrupt';

export const approvalKeyBindings: KeyBinding<ApprovalKeyAction>[] = [
  { action: 'once', keys: 'a', description: 'allow once', matches: (i, k) => !k.ctrl && !k.meta && i === 'a' },
  { action: 'session', keys: 's', description: 'allow for this session', matches: (i, k) => !k.ctrl && !k.meta && i === 's' },
  { action: 'deny', keys: 'd', description: 'deny', matches: (i, k) => (!k.ctrl && !k.meta && i === 'd') || k.escape },
  { action: 'interrupt', keys: 'Ctrl+C', description: 'deny and cancel the answer', matches: ctrl('c') },
];
