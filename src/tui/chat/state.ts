import type { ToolCall } from '../../chat/types.js';
import { cut, emptyEditor, insert, withText, type Editor } from '../shared/editor.js';
import { isTooLongToEdit, pastePlaceholder, placeholderBefore } from './paste.js';
import type { Picker } from './picker.js';
import { addSpend, type SessionSpend, type SpendCap } from './spend.js';

/** One finished entry of the transcript; it goes to the scrollback and is never drawn again. */
export interface TranscriptItem {
  id: number;
  kind: 'user' | 'assistant' | 'tool' | 'notice' | 'error' | 'command';
  text: string;
  /** An assistant answer cut short by the user. */
  cancelled?: boolean;
  /** A piece of a long answer that was moved to the scrollback while the rest streamed. */
  continued?: boolean;
  /** For a continued piece: a blank line before it (it starts a new block), or none. */
  gap?: boolean;
  /** The start of `text` printed before (the finished lines of a code block or table): not printed again. */
  printed?: string;
  /** `text` is the start of a block still being written (a code block, a table): only its final lines are printed. */
  open?: boolean;
  /** `text` goes on with a list item printed above (the rest of a long one): its marker is not drawn again. */
  continuesItem?: boolean;
}

export interface PendingApproval {
  call: ToolCall;
  summary: string;
}

export interface ChatState {
  items: TranscriptItem[];
  /** The answer streaming now (not yet in the scrollback). */
  live: string;
  /** Part of the answer streaming now is in the scrollback already; `liveGap`: a blank line since. */
  liveContinues: boolean;
  liveGap: boolean;
  /** The start of `live` already in the scrollback (a code block's finished lines). */
  livePrinted: string;
  /** `live` goes on with a list item in the scrollback already: its marker is not drawn again. */
  liveContinuesItem: boolean;
  busy: boolean;
  editor: Editor;
  history: string[];
  /** Position while walking the input history, and what was typed before the walk. */
  historyIndex: number | null;
  draft: string;
  model: string;
  toolsEnabled: boolean;
  /** The last answer: its tokens, what it cost, the model asked and the one that answered (a route may pick another). */
  lastAnswer: { tokens: number; credits: number | null; asked: string; answeredBy: string | null } | null;
  /** What this session has spent, by the model that answered. */
  spend: SessionSpend;
  /** The server-side cap of a `--max-spend` session. */
  cap: SpendCap | null;
  balance: number | null;
  approval: PendingApproval | null;
  picker: Picker | null;
  /** Long pastes, collapsed in the composer (#1 is the first), expanded when sent. */
  pastes: string[];
  /** The draft is open in $VISUAL / $EDITOR: the chat has handed the terminal over. */
  externalEditor: boolean;
  /** Files /attach added, sent with the next question. */
  attachments: { path: string; text: string }[];
  /** What Tab found for a path being typed, when it was more than one. */
  pathMatches: string[];
  /** While an answer is on its way: since when, tokens so far (estimated as they stream), the tool running. */
  progress: { startedAt: number; tokens: number; tool: string | null } | null;
  /** Ctrl+C on an idle prompt arms exit; a second one exits. */
  exitArmed: boolean;
  conversationId: string | null;
}

export type ChatEvent =
  | { type: 'edit'; editor: Editor }
  | { type: 'history'; direction: 'prev' | 'next' }
  | { type: 'submitted'; text: string }
  | { type: 'item'; itemId: number; kind: TranscriptItem['kind']; text: string; cancelled?: boolean }
  | { type: 'live'; text: string }
  /**
   * Moves a finished part of the live answer to the scrollback (less `livePrinted`, printed
   * already); `gap`: a blank line follows it. `keep`: the text stays live, and this much of it is printed.
   */
  | { type: 'commitLive'; itemId: number; text: string; gap: boolean; keep?: string; continuesItem?: boolean }
  /** The live answer's message is done: its last part goes to the scrollback. */
  | { type: 'endLive'; itemId: number; text: string; cancelled: boolean }
  /** `at`: when the answer was asked for (the elapsed time counts from it). */
  | { type: 'busy'; busy: true; at: number }
  | { type: 'busy'; busy: false }
  | { type: 'progress'; tokens?: number; tool?: string | null }
  | { type: 'approval'; approval: PendingApproval | null }
  | { type: 'picker'; picker: Picker | null }
  /** A long paste, collapsed; `join`: it goes on the paste just before the cursor (a paste the terminal split). */
  | { type: 'paste'; text: string; join?: boolean }
  /** Backspace or Ctrl+W right after a collapsed paste: the placeholder goes whole. */
  | { type: 'unpaste'; start: number }
  /** Text that fills the composer whole (a picked input, what $EDITOR wrote). */
  | { type: 'compose'; text: string }
  | { type: 'externalEditor'; open: boolean }
  | { type: 'attach'; path: string; text: string }
  | { type: 'attachmentsSent' }
  | { type: 'pathMatches'; matches: string[] }
  | { type: 'model'; model: string }
  | { type: 'tools'; enabled: boolean }
  | { type: 'lastAnswer'; tokens: number; credits: number | null; asked: string; answeredBy: string | null }
  /** One request's charge, to the model that answered it. */
  | { type: 'spent'; model: string; micro: number; tokens: number }
  | { type: 'capRemaining'; remaining: number }
  | { type: 'balance'; balance: number | null }
  | { type: 'exitArmed'; armed: boolean }
  | { type: 'conversation'; id: string | null; items?: ConversationItem[] };

/** A message of a resumed conversation, as the transcript shows it. */
export interface ConversationItem {
  itemId: number;
  kind: TranscriptItem['kind'];
  text: string;
  cancelled?: boolean;
}

export function initialState(options: { model: string; toolsEnabled: boolean; history?: string[]; maxSpend?: number | null }): ChatState {
  return {
    items: [],
    live: '',
    liveContinues: false,
    liveGap: false,
    livePrinted: '',
    liveContinuesItem: false,
    busy: false,
    editor: emptyEditor,
    history: options.history ?? [],
    historyIndex: null,
    draft: '',
    model: options.model,
    toolsEnabled: options.toolsEnabled,
    lastAnswer: null,
    spend: {},
    cap: options.maxSpend != null ? { limit: options.maxSpend, remaining: null } : null,
    balance: null,
    approval: null,
    picker: null,
    pastes: [],
    externalEditor: false,
    attachments: [],
    pathMatches: [],
    progress: null,
    exitArmed: false,
    conversationId: null,
  };
}

/**
 * `text` as the composer holds it: as it is, the cursor at its end or at the end of its first
 * line; or, when it is too long to edit, as the placeholder of a paste (the same paste, and
 * number, when it is one already).
 */
function composed(state: ChatState, text: string, cursor: 'firstLine' | 'end'): Pick<ChatState, 'editor' | 'pastes'> {
  if (!isTooLongToEdit(text)) {
    const firstBreak = text.indexOf('\n');
    return { editor: { text, cursor: cursor === 'end' || firstBreak < 0 ? text.length : firstBreak }, pastes: state.pastes };
  }
  const known = state.pastes.indexOf(text);
  const pastes = known >= 0 ? state.pastes : [...state.pastes, text];
  return { editor: withText(pastePlaceholder(known >= 0 ? known + 1 : pastes.length, text)), pastes };
}

/** An empty prompt holds no placeholder: the next paste is #1 again (unless a draft put aside while walking the history has some). */
const pastesFor = (state: ChatState, editor: Editor): string[] => (editor.text === '' && state.historyIndex === null ? [] : state.pastes);

/**
 * A transcript item, its id given by the event (made when the event was, see item-ids.ts): the
 * reducer stays pure, so React may run it twice on one event and get the same item.
 */
const item = (id: number, kind: TranscriptItem['kind'], text: string, extra: Partial<TranscriptItem> = {}): TranscriptItem => ({
  id,
  kind,
  text,
  ...extra,
});

/** How a piece of the streaming answer joins what is already in the scrollback. */
const continuation = (state: ChatState): Partial<TranscriptItem> => (state.liveContinues ? { continued: true, gap: state.liveGap } : {});
/** What of the live text the scrollback has already: its start, or a list item's marker. */
const printedBefore = (state: ChatState): Partial<TranscriptItem> => ({
  ...(state.livePrinted ? { printed: state.livePrinted } : {}),
  ...(state.liveContinuesItem ? { continuesItem: true } : {}),
});

export function chatReducer(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case 'edit':
      return {
        ...state,
        editor: event.editor,
        pastes: pastesFor(state, event.editor),
        exitArmed: false,
        pathMatches: event.editor.text === state.editor.text ? state.pathMatches : [],
      };
    case 'history': {
      if (state.history.length === 0) return state;
      const last = state.history.length - 1;
      if (event.direction === 'prev') {
        if (state.historyIndex === 0) return state;
        const index = state.historyIndex === null ? last : state.historyIndex - 1;
        return {
          ...state,
          historyIndex: index,
          draft: state.historyIndex === null ? state.editor.text : state.draft,
          // On its first line: ↑ again goes on to the input before.
          ...composed(state, state.history[index] ?? '', 'firstLine'),
        };
      }
      if (state.historyIndex === null) return state;
      if (state.historyIndex >= last) return { ...state, historyIndex: null, editor: withText(state.draft) };
      return { ...state, historyIndex: state.historyIndex + 1, ...composed(state, state.history[state.historyIndex + 1] ?? '', 'end') };
    }
    case 'submitted':
      return {
        ...state,
        editor: emptyEditor,
        pastes: [],
        historyIndex: null,
        draft: '',
        history: state.history.at(-1) === event.text ? state.history : [...state.history, event.text],
      };
    case 'item':
      return { ...state, items: [...state.items, item(event.itemId, event.kind, event.text, event.cancelled ? { cancelled: true } : {})] };
    case 'live':
      return { ...state, live: event.text };
    case 'commitLive':
      return {
        ...state,
        items: [
          ...state.items,
          item(event.itemId, 'assistant', event.text, {
            ...continuation(state),
            ...printedBefore(state),
            ...(event.keep !== undefined ? { open: true } : {}),
          }),
        ],
        liveContinues: true,
        liveGap: event.gap,
        livePrinted: event.keep ?? '',
        // A block kept live is the same block: it goes on as it did.
        liveContinuesItem: event.keep !== undefined ? state.liveContinuesItem : (event.continuesItem ?? false),
      };
    case 'endLive': {
      const extra = { ...continuation(state), ...printedBefore(state), ...(event.cancelled ? { cancelled: true } : {}) };
      const piece = event.text.trim() ? [item(event.itemId, 'assistant', event.text, extra)] : [];
      return { ...state, items: [...state.items, ...piece], live: '', liveContinues: false, liveGap: false, livePrinted: '', liveContinuesItem: false };
    }
    case 'busy':
      return { ...state, busy: event.busy, progress: event.busy ? { startedAt: event.at, tokens: 0, tool: null } : null };
    case 'progress':
      if (!state.progress) return state;
      return {
        ...state,
        progress: {
          ...state.progress,
          ...(event.tokens !== undefined ? { tokens: event.tokens } : {}),
          ...(event.tool !== undefined ? { tool: event.tool } : {}),
        },
      };
    case 'approval':
      return { ...state, approval: event.approval };
    case 'picker':
      return { ...state, picker: event.picker };
    case 'paste': {
      const before = event.join ? placeholderBefore(state.editor, state.pastes) : null;
      if (before) {
        const joined = `${state.pastes[before.index] ?? ''}${event.text}`;
        const editor = insert(cut(state.editor, before.start, state.editor.cursor), pastePlaceholder(before.index + 1, joined));
        return { ...state, pastes: state.pastes.with(before.index, joined), editor, exitArmed: false };
      }
      const pastes = [...state.pastes, event.text];
      return { ...state, pastes, editor: insert(state.editor, pastePlaceholder(pastes.length, event.text)), exitArmed: false };
    }
    case 'unpaste': {
      const editor = cut(state.editor, event.start, state.editor.cursor);
      return { ...state, editor, pastes: pastesFor(state, editor), exitArmed: false };
    }
    case 'compose':
      return { ...state, ...composed(state, event.text, 'end'), historyIndex: null, exitArmed: false, pathMatches: [] };
    case 'externalEditor':
      return { ...state, externalEditor: event.open };
    case 'attach':
      return { ...state, attachments: [...state.attachments.filter((a) => a.path !== event.path), { path: event.path, text: event.text }] };
    case 'attachmentsSent':
      return { ...state, attachments: [] };
    case 'pathMatches':
      return { ...state, pathMatches: event.matches };
    case 'model':
      return { ...state, model: event.model };
    case 'tools':
      return { ...state, toolsEnabled: event.enabled };
    case 'lastAnswer':
      return { ...state, lastAnswer: { tokens: event.tokens, credits: event.credits, asked: event.asked, answeredBy: event.answeredBy } };
    case 'spent':
      return { ...state, spend: addSpend(state.spend, event.model, event.micro, event.tokens) };
    case 'capRemaining':
      return state.cap ? { ...state, cap: { ...state.cap, remaining: event.remaining } } : state;
    case 'balance':
      return { ...state, balance: event.balance };
    case 'exitArmed':
      return { ...state, exitArmed: event.armed };
    case 'conversation':
      return {
        ...state,
        conversationId: event.id,
        items: [...state.items, ...(event.items ?? []).map((entry) => item(entry.itemId, entry.kind, entry.text, entry.cancelled ? { cancelled: true } : {}))],
      };
  }
}
