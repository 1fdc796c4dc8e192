import { useRef } from 'react';
import { useInput, type Key } from 'ink';
import {
  backspace,
  cleanInput,
  deleteWord,
  editLine,
  emptyEditor,
  insert,
  killToLineEnd,
  killToLineStart,
  move,
  moveLine,
  moveWord,
  withText,
  type Editor,
} from '../shared/editor.js';
import { actionFor, approvalKeyBindings, bindingFor, pickerKeyBindings } from './keys.js';
import type { ChatSession } from './session.js';
import { completions, runSlash } from './slash-commands.js';
import { completePath } from './path-complete.js';
import { movePicker, pickerChoice } from './picker.js';
import { expandPastes, isLongPaste, pasteCollector, placeholderBefore } from './paste.js';
import { splitRead } from './split-read.js';

const NO_KEY = { backspace: false, delete: false, ctrl: false, meta: false };

/**
 * Every key the chat reads, through the key tables of keys.ts: the prompt's, an open list's and
 * an approval's; pastes, however the terminal hands them over. Off while $EDITOR has the terminal.
 */
export function useChatKeys(session: ChatSession) {
  const { dispatch, latest } = session;
  const pastes = useRef(pasteCollector()).current;
  /** The key before was Ctrl+X: the next one finishes a chord. */
  const chord = useRef(false);
  /** The input before was a long chunk from a terminal that does not bracket pastes: the chunks that follow go on it. */
  const unbracketedPaste = useRef(false);

  const submit = (raw: string) => {
    // Collapsed pastes go out whole; the transcript shows them collapsed.
    const text = expandPastes(raw, latest().pastes).trim();
    if (!text) return;
    dispatch({ type: 'submitted', text });
    session.rememberInput(text);
    if (text.startsWith('/')) {
      // A command and what it answers are an item of their own, apart from the answer before.
      dispatch({ type: 'item', kind: 'command', text });
      void runSlash(session, text);
    } else {
      void session.ask(text, raw.trim());
    }
  };

  /** A finished bracketed paste: into the filter of an open list, else into the composer (collapsed when long). */
  const takePaste = (text: string) => {
    const { picker, approval, editor } = latest();
    if (approval) return;
    if (picker) return dispatch({ type: 'picker', picker: { ...picker, filter: editLine(picker.filter, text, NO_KEY), index: 0 } });
    dispatch(isLongPaste(text) ? { type: 'paste', text } : { type: 'edit', editor: insert(editor, text) });
  };

  /** Keys while a list is open (/model, /resume, Ctrl+R): they filter and pick in it. */
  const pickerKey = (input: string, key: Key) => {
    const picker = latest().picker;
    if (!picker) return;
    switch (bindingFor(pickerKeyBindings, input, key)) {
      case 'close':
        return dispatch({ type: 'picker', picker: null });
      case 'pick':
        return session.pick(pickerChoice(picker));
      case 'up':
        return dispatch({ type: 'picker', picker: movePicker(picker, -1) });
      case 'down':
        return dispatch({ type: 'picker', picker: movePicker(picker, 1) });
      case null: {
        const filter = editLine(picker.filter, input, key);
        if (filter !== picker.filter) dispatch({ type: 'picker', picker: { ...picker, filter, index: 0 } });
      }
    }
  };

  /** Keys while a tool waits for approval; Ctrl+C denies it and cancels the answer. */
  const approvalKey = (input: string, key: Key) => {
    const action = bindingFor(approvalKeyBindings, input, key);
    if (action === 'interrupt') session.cancel();
    else if (action) session.resolveApproval(action);
  };

  /** Backspace and Ctrl+W take a collapsed paste whole, not a piece of its placeholder. */
  const erase = (editor: Editor, edit: (editor: Editor) => Editor) => {
    const placeholder = placeholderBefore(editor, latest().pastes);
    dispatch(placeholder ? { type: 'unpaste', start: placeholder.start } : { type: 'edit', editor: edit(editor) });
  };

  const handleKey = (input: string, key: Key) => {
    // Not this render's state: a key may arrive before the previous one has been rendered.
    const state = latest();
    const pasted = pastes.take(input, key);
    if (pasted === 'pending') return;
    if (pasted !== null) return takePaste(pasted);
    if (state.approval) return approvalKey(input, key);
    if (state.picker) return pickerKey(input, key);
    const action = actionFor(input, key, chord.current);
    chord.current = action === 'chord';
    const afterPaste = unbracketedPaste.current;
    unbracketedPaste.current = false;
    const editor = state.editor;
    switch (action) {
      case 'chord':
        return;
      case 'interrupt':
        if (state.busy) return session.cancel();
        if (editor.text) return dispatch({ type: 'edit', editor: emptyEditor });
        if (state.exitArmed) return session.exit();
        return dispatch({ type: 'exitArmed', armed: true });
      case 'cancel':
        if (state.busy) session.cancel();
        return;
      case 'exit':
        if (!editor.text) session.exit();
        return;
      case 'submit':
        if (!state.busy) submit(editor.text);
        return;
      case 'newline':
        return dispatch({ type: 'edit', editor: insert(editor, '\n') });
      case 'up': {
        const moved = moveLine(editor, 'up');
        return dispatch(moved ? { type: 'edit', editor: moved } : { type: 'history', direction: 'prev' });
      }
      case 'down': {
        const moved = moveLine(editor, 'down');
        return dispatch(moved ? { type: 'edit', editor: moved } : { type: 'history', direction: 'next' });
      }
      case 'left':
      case 'right':
      case 'home':
      case 'end':
        return dispatch({ type: 'edit', editor: move(editor, action) });
      case 'wordLeft':
        return dispatch({ type: 'edit', editor: moveWord(editor, 'left') });
      case 'wordRight':
        return dispatch({ type: 'edit', editor: moveWord(editor, 'right') });
      case 'backspace':
        return erase(editor, backspace);
      case 'deleteWord':
        return erase(editor, deleteWord);
      case 'killToEnd':
        return dispatch({ type: 'edit', editor: killToLineEnd(editor) });
      case 'killToStart':
        return dispatch({ type: 'edit', editor: killToLineStart(editor) });
      case 'search':
        if (!state.busy) session.openHistorySearch();
        return;
      case 'externalEditor':
        if (!state.busy) dispatch({ type: 'externalEditor', open: true });
        return;
      case 'complete': {
        const attach = /^\/attach\s+(.*)$/.exec(editor.text);
        if (attach) {
          const { completed, matches } = completePath(attach[1] ?? '');
          dispatch({ type: 'edit', editor: withText(`/attach ${completed}`) });
          return dispatch({ type: 'pathMatches', matches });
        }
        const first = completions(editor.text)[0];
        if (first) dispatch({ type: 'edit', editor: withText(`/${first.name}${first.args ? ' ' : ''}`) });
        return;
      }
      case null: {
        if (!input || key.ctrl || key.meta) return;
        // A terminal that does not bracket pastes hands a long one over in several chunks: the
        // chunks after the first go on its paste.
        if (afterPaste && input.length > 1) {
          unbracketedPaste.current = true;
          return dispatch({ type: 'paste', text: cleanInput(input), join: true });
        }
        // Text and Enter in one chunk (fast typing, a batching terminal) is typing, then Enter;
        // line breaks inside a chunk are a paste, kept as one message.
        if (input.length > 1 && input.indexOf('\r') === input.length - 1 && !state.busy) {
          const typed = insert(editor, input.slice(0, -1));
          return submit(typed.text);
        }
        const text = cleanInput(input);
        // A long paste stays one line in the composer (it would not fit); it is sent whole.
        if (text.length > 1 && isLongPaste(text)) {
          unbracketedPaste.current = true;
          return dispatch({ type: 'paste', text });
        }
        dispatch({ type: 'edit', editor: insert(editor, text) });
      }
    }
  };

  /** One read: the text in it and each key after it, in order (inside a paste, all of it is text). */
  const handleRead = (input: string, key: Key) => {
    if (pastes.collecting()) return handleKey(input, key);
    for (const part of splitRead(input, key)) handleKey(part.input, part.key);
  };

  // Off while $EDITOR has the terminal: Ink then leaves raw mode and stops reading stdin.
  useInput(handleRead, { isActive: !session.state.externalEditor });

}
