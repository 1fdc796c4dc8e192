import { Box, useInput, type Key } from 'ink';
import { markdownWidth } from './markdown.js';
import { useTerminalSize } from '../shared/use-terminal-size.js';
import { useNow } from '../shared/use-now.js';
import { ApprovalDialog } from './components/ApprovalDialog.js';
import { Composer } from './components/Composer.js';
import { LiveMessage } from './components/LiveMessage.js';
import { SlashHints } from './components/SlashHints.js';
import { StatusLine } from './components/StatusLine.js';
import { Transcript } from './components/Transcript.js';
import { backspace, cleanInput, deleteWord, editLine, emptyEditor, insert, move, withText } from '../shared/editor.js';
import { actionFor } from './keys.js';
import { useChatSession, type ChatDeps } from './session.js';
import { completions, runSlash } from './slash-commands.js';
import { completePath } from './path-complete.js';
import { Picker } from './components/Picker.js';
import { pickerMatches } from './state.js';
import { expandPastes, PASTE_COLLAPSE_CHARS, PASTE_COLLAPSE_LINES } from './paste.js';

/** The chat screen: the session holds the state; this wires keys to it and draws. */
export function ChatApp(deps: ChatDeps) {
  const session = useChatSession(deps);
  const { state, dispatch, latest } = session;
  const { columns, rows } = useTerminalSize();
  const width = markdownWidth(columns);
  // The spinner and elapsed time move while an answer is on its way (a frame costs bytes: not too often).
  const now = useNow(state.busy ? 250 : null);

  const submit = (raw: string) => {
    // Collapsed pastes go out whole.
    const text = expandPastes(raw, latest().pastes).trim();
    if (!text) return;
    dispatch({ type: 'submitted', text });
    session.rememberInput(text);
    if (text.startsWith('/')) {
      // A command and what it answers are an item of their own, apart from the answer before.
      dispatch({ type: 'item', kind: 'command', text });
      void runSlash(session, text);
    } else {
      void session.ask(text);
    }
  };

  /** Keys while a list is open (/model, Ctrl+R): they filter and pick in it. */
  const pickerKey = (input: string, key: Key) => {
    const picker = latest().picker;
    if (!picker) return;
    const matches = pickerMatches(picker);
    if (key.escape || (key.ctrl && input === 'c')) return dispatch({ type: 'picker', picker: null });
    if (key.return) return session.pick(matches[picker.index]);
    if (key.upArrow) return dispatch({ type: 'picker', picker: { ...picker, index: Math.max(0, picker.index - 1) } });
    if (key.downArrow) return dispatch({ type: 'picker', picker: { ...picker, index: Math.min(matches.length - 1, picker.index + 1) } });
    const filter = editLine(picker.filter, input, key);
    if (filter !== picker.filter) dispatch({ type: 'picker', picker: { ...picker, filter, index: 0 } });
  };

  useInput((input: string, key: Key) => {
    // Not this render's state: a key may arrive before the previous one has been rendered.
    const state = latest();
    if (state.approval) {
      const choice = input === 'a' ? 'once' : input === 's' ? 'session' : input === 'd' || key.escape ? 'deny' : null;
      if (choice) session.resolveApproval(choice);
      return;
    }
    if (state.picker) return pickerKey(input, key);
    const action = actionFor(input, key);
    const editor = state.editor;
    switch (action) {
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
      case 'historyPrev':
        return dispatch({ type: 'history', direction: 'prev' });
      case 'historyNext':
        return dispatch({ type: 'history', direction: 'next' });
      case 'left':
      case 'right':
      case 'home':
      case 'end':
        return dispatch({ type: 'edit', editor: move(editor, action) });
      case 'backspace':
        return dispatch({ type: 'edit', editor: backspace(editor) });
      case 'deleteWord':
        return dispatch({ type: 'edit', editor: deleteWord(editor) });
      case 'clearLine':
        return dispatch({ type: 'edit', editor: emptyEditor });
      case 'search':
        if (!state.busy) session.openHistorySearch();
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
        // Text and Enter in one chunk (fast typing, a batching terminal) is typing, then Enter;
        // line breaks inside a chunk are a paste, kept as one message.
        if (input.length > 1 && input.indexOf('\r') === input.length - 1 && !state.busy) {
          const typed = insert(editor, input.slice(0, -1));
          return submit(typed.text);
        }
        const text = cleanInput(input);
        // A long paste stays one line in the composer (it would not fit); it is sent whole.
        if (text.length > 1 && (text.split('\n').length >= PASTE_COLLAPSE_LINES || text.length > PASTE_COLLAPSE_CHARS)) {
          return dispatch({ type: 'paste', text });
        }
        dispatch({ type: 'edit', editor: insert(editor, text) });
      }
    }
  });

  return (
    <Box flexDirection="column">
      <Transcript items={state.items} width={width} />
      <LiveMessage
        text={state.live}
        printed={state.livePrinted}
        busy={state.busy}
        width={width}
        continues={state.liveContinues && !state.liveGap}
      />
      {state.approval ? <ApprovalDialog approval={state.approval} /> : null}
      {state.picker ? <Picker picker={state.picker} rows={Math.min(10, rows - 6)} /> : null}
      <Composer editor={state.editor} disabled={state.busy} placeholder={state.busy ? '' : ' Ask anything, or /help'} maxRows={Math.max(1, rows - 8)} />
      <SlashHints commands={completions(state.editor.text)} paths={state.pathMatches} attachments={state.attachments.map((a) => a.path)} />
      <StatusLine state={state} now={now} />
    </Box>
  );
}
