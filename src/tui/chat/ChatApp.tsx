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
import { backspace, deleteWord, emptyEditor, insert, move, withText } from '../shared/editor.js';
import { actionFor } from './keys.js';
import { useChatSession, type ChatDeps } from './session.js';
import { completions, runSlash } from './slash-commands.js';

/** The chat screen: the session holds the state; this wires keys to it and draws. */
export function ChatApp(deps: ChatDeps) {
  const session = useChatSession(deps);
  const { state, dispatch, latest } = session;
  const width = markdownWidth(useTerminalSize().columns);
  // The spinner and elapsed time move while an answer is on its way.
  const now = useNow(state.busy ? 100 : null);

  const submit = (raw: string) => {
    const text = raw.trim();
    if (!text) return;
    dispatch({ type: 'submitted', text });
    if (text.startsWith('/')) void runSlash(session, text);
    else void session.ask(text);
  };

  useInput((input: string, key: Key) => {
    // Not this render's state: a key may arrive before the previous one has been rendered.
    const state = latest();
    if (state.approval) {
      const choice = input === 'a' ? 'once' : input === 's' ? 'session' : input === 'd' || key.escape ? 'deny' : null;
      if (choice) session.resolveApproval(choice);
      return;
    }
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
      case 'complete': {
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
        dispatch({ type: 'edit', editor: insert(editor, input) });
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
      <Composer editor={state.editor} disabled={state.busy} placeholder={state.busy ? '' : ' Ask anything, or /help'} />
      <SlashHints commands={completions(state.editor.text)} />
      <StatusLine state={state} now={now} />
    </Box>
  );
}
