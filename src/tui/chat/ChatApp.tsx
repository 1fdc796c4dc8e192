import { useEffect } from 'react';
import { Box } from 'ink';
import { markdownWidth } from './markdown.js';
import { useTerminalSize } from '../shared/use-terminal-size.js';
import { useNow } from '../shared/use-now.js';
import { useKeepScrollback } from '../shared/keep-scrollback.js';
import { ApprovalDialog } from './components/ApprovalDialog.js';
import { Composer } from './components/Composer.js';
import { LiveMessage } from './components/LiveMessage.js';
import { SlashHints } from './components/SlashHints.js';
import { StatusLine } from './components/StatusLine.js';
import { Transcript } from './components/Transcript.js';
import { liveRoom, useChatSession, type ChatDeps } from './session.js';
import { completions } from './slash-commands.js';
import { Picker } from './components/Picker.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './paste.js';
import { useChatKeys } from './use-chat-keys.js';

/** The chat screen: the session holds the state, useChatKeys reads the keys; this draws. */
export function ChatApp(deps: ChatDeps) {
  const session = useChatSession(deps);
  const { state } = session;
  const { columns, rows } = useTerminalSize();
  const width = markdownWidth(columns);
  // The spinner and elapsed time move while an answer is on its way (a frame costs bytes: not too often).
  const now = useNow(state.busy ? 250 : null);

  // The terminal marks pastes, so that one paste is one paste however many reads it takes.
  useEffect(() => {
    deps.writeRaw(BRACKETED_PASTE_ON);
    return () => deps.writeRaw(BRACKETED_PASTE_OFF);
    // Once, at start.
  }, []);

  // A resized terminal rewraps or scrolls the live rows where Ink does not expect them.
  useKeepScrollback();

  // Ctrl+G: the input hook below is off (Ink has let go of raw mode and stdin); the editor runs now.
  useEffect(() => {
    if (state.externalEditor) session.editDraft();
    // On the flag's change alone: editDraft is a new function each render.
  }, [state.externalEditor]);

  useChatKeys(session);

  return (
    <Box flexDirection="column">
      <Transcript items={state.items} width={width} />
      <LiveMessage
        text={state.live}
        printed={state.livePrinted}
        continuesItem={state.liveContinuesItem}
        busy={state.busy}
        width={width}
        columns={columns}
        maxRows={liveRoom(rows, session.settings.liveRows, state.approval !== null)}
        continues={state.liveContinues && !state.liveGap}
      />
      {state.approval ? <ApprovalDialog approval={state.approval} /> : null}
      {state.picker ? <Picker picker={state.picker} rows={Math.min(10, rows - 6)} width={columns} /> : null}
      <Composer editor={state.editor} disabled={state.busy} placeholder={state.busy ? '' : ' Ask anything, or /help'} maxRows={Math.max(1, rows - 8)} columns={columns} />
      <SlashHints commands={completions(state.editor.text)} paths={state.pathMatches} attachments={state.attachments.map((a) => a.path)} />
      <StatusLine state={state} now={now} />
    </Box>
  );
}
