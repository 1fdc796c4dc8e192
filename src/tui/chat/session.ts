import { useCallback, useEffect, useReducer, useRef } from 'react';
import type { Client } from '../../client/client.js';
import { runTurn } from '../../chat/engine.js';
import type { ChatMemory, RememberedMessage } from '../../chat/memory-port.js';
import type { ClientTool, InputHistory, ToolCall, WireMessage } from '../../chat/types.js';
import { PublicConfig } from '../../contract/schemas/surface.js';
import { editInExternalEditor } from './external-editor.js';
import { describeFailure, type Caller } from './failure.js';
import { planCommit } from './live-split.js';
import { markdownWidth } from './markdown.js';
import { expandPastes } from './paste.js';
import { listItems, plainItems, type PickerItem } from './picker.js';
import { chatReducer, initialState, type ChatEvent, type ChatState } from './state.js';
import { toCredits, toMicro } from './spend.js';
import { useTerminalSize } from '../shared/use-terminal-size.js';

/** Rows around the live answer while it streams: its margin, the composer, the status line, and one spare. */
const LIVE_CHROME_ROWS = 5;
/** How often, and how long apart, the balance is read again while a charge is still held. */
const SETTLE_ATTEMPTS = 20;
const SETTLE_WAIT_MS = 25;
/** Rows an approval dialog takes below the answer. */
const APPROVAL_ROWS = 6;
/** Past conversations /resume offers. */
const RESUMABLE = 50;
/**
 * Characters of a message the transcript shows whole (a question just sent, a message of a
 * resumed conversation): Ink draws about 30 KB a second, and a 100 KB paste must not hold the
 * screen for seconds. A longer question shows with its pastes collapsed; a longer past message, cut.
 */
const TRANSCRIPT_MESSAGE_CHARS = 8000;

/** A past message as the resumed transcript shows it: long ones cut, with what was left out. */
function resumedItem({ message, cancelled }: RememberedMessage): { kind: 'user' | 'assistant'; text: string; cancelled?: boolean }[] {
  if ((message.role !== 'user' && message.role !== 'assistant') || !message.content) return [];
  const { content } = message;
  const text =
    content.length > TRANSCRIPT_MESSAGE_CHARS
      ? `${content.slice(0, TRANSCRIPT_MESSAGE_CHARS)}\n… (${content.length - TRANSCRIPT_MESSAGE_CHARS} more characters)`
      : content;
  return [{ kind: message.role, text, ...(cancelled ? { cancelled } : {}) }];
}

/** The rows the live answer may take: the composer, the status line, margins and a dialog take the rest. */
export function liveRoom(rows: number, liveRows: number, approval: boolean): number {
  const room = rows - LIVE_CHROME_ROWS - (approval ? APPROVAL_ROWS : 0);
  return Math.max(2, liveRows > 0 ? Math.min(liveRows, room) : room);
}

export interface ChatSettings {
  model: string;
  system?: string;
  toolsEnabled: boolean;
  maxToolRounds: number;
  /** How many recent messages are sent with each question. */
  contextMessages: number;
  maxFileBytes: number;
  /** Rows the live answer may use before its finished part moves to the scrollback (0: as the terminal allows). */
  liveRows: number;
  /** How often the streaming text is redrawn (0: at every delta, for tests). */
  redrawMs: number;
}

export interface ChatDeps {
  client: Client;
  memory: ChatMemory | null;
  settings: ChatSettings;
  /** A conversation to continue (`--continue`, `--conversation`). */
  resume?: string | null;
  /** Extra tools (admin tools), offered with the memory tools. */
  extraTools?: ClientTool[];
  exit(): void;
  /** Writes straight to the terminal (OSC 52 clipboard). */
  writeRaw(text: string): void;
  /** The input history kept across sessions (~/.svc/chat_history.jsonl); none in a throwaway chat. */
  history?: InputHistory;
  /** `--max-spend`: the client's key is the session's own, with this budget (credits) kept by the server. */
  maxSpend?: number | null;
}

export type { InputHistory } from '../../chat/types.js';

export type ApprovalChoice = 'once' | 'session' | 'deny';

/** The chat's state and everything that changes it: one container, the components only draw. */
export function useChatSession(deps: ChatDeps) {
  const { client, memory, settings } = deps;
  const [state, enqueue] = useReducer(
    chatReducer,
    { model: settings.model, toolsEnabled: settings.toolsEnabled, history: deps.history?.entries() ?? [], maxSpend: deps.maxSpend ?? null },
    initialState,
  );
  const stateRef = useRef<ChatState>(state);
  stateRef.current = state;
  /**
   * Every change goes through here, so `stateRef` holds its result at once: keys that arrive
   * before React has rendered the previous one (two keys in one read) must build on it.
   */
  const dispatch = useCallback((event: ChatEvent) => {
    stateRef.current = chatReducer(stateRef.current, event);
    enqueue(event);
  }, []);
  const conversation = useRef<WireMessage[]>([]);
  const conversationId = useRef<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const approvalResolver = useRef<((choice: ApprovalChoice) => void) | null>(null);
  const allowedForSession = useRef(new Set<string>());
  const liveText = useRef('');
  const liveTokens = useRef(0);
  const redrawTimer = useRef<NodeJS.Timeout | null>(null);
  const size = useTerminalSize();
  const sizeRef = useRef(size);
  sizeRef.current = size;

  /** Who the key is, once GET /config has said (what a 402 suggests depends on it), and that read. */
  const caller = useRef<Caller | null>(null);
  const callerRead = useRef<Promise<void>>(Promise.resolve());

  const notice = useCallback((text: string) => dispatch({ type: 'item', kind: 'notice', text }), []);
  const failure = useCallback(
    (error: unknown) => dispatch({ type: 'item', kind: 'error', text: describeFailure(error, caller.current, deps.maxSpend ?? null) }),
    [deps.maxSpend],
  );

  const readCaller = useCallback(async () => {
    try {
      const config = PublicConfig.pick({ caller: true }).safeParse(await client.call({ method: 'GET', path: '/config' }));
      if (config.success) caller.current = config.data.caller;
    } catch {
      // Without it a 402 gives the hint that fits every key.
    }
  }, [client]);

  /**
   * The balance once nothing is held for this chat: right after an answer (a cancelled one above
   * all) the server may still be settling it, and a held amount is not what was charged.
   */
  const refreshBalance = useCallback(async () => {
    try {
      for (let attempt = 0; ; attempt++) {
        const balance = (await client.call({ method: 'GET', path: '/credits/balance' })) as { credits: number; held_credits: number };
        if (balance.held_credits === 0 || attempt >= SETTLE_ATTEMPTS) {
          dispatch({ type: 'balance', balance: balance.credits });
          return balance.credits;
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
      }
    } catch {
      return null;
    }
  }, [client]);

  /** What is left of a `--max-spend` session's cap, as the server counts it (GET /key of the session's key). */
  const refreshCap = useCallback(async () => {
    if (!stateRef.current.cap) return;
    try {
      const key = (await client.call({ method: 'GET', path: '/key' })) as { data: { limit_remaining: number | null } };
      if (key.data.limit_remaining !== null) dispatch({ type: 'capRemaining', remaining: key.data.limit_remaining });
    } catch {
      // The status line keeps what it knew; the server still holds the cap.
    }
  }, [client]);

  /**
   * Draws the live answer, first handing its finished parts to the scrollback so that the live
   * region stays shorter than the terminal (see live-split.ts).
   */
  const redraw = useCallback(() => {
    redrawTimer.current = null;
    const { columns, rows } = sizeRef.current;
    const maxRows = liveRoom(rows, settings.liveRows, stateRef.current.approval !== null);
    let text = liveText.current;
    const next = () => planCommit(text, { width: markdownWidth(columns), columns, maxRows, printed: stateRef.current.livePrinted });
    for (let plan = next(); plan; plan = next()) {
      if (plan.kind === 'keep') {
        dispatch({ type: 'commitLive', text: plan.through, gap: false, keep: plan.printed ?? plan.through });
        if (plan.live !== undefined) text = plan.live;
      } else {
        dispatch({ type: 'commitLive', text: plan.commit, gap: plan.gap });
        text = plan.rest;
      }
    }
    liveText.current = text;
    dispatch({ type: 'live', text });
    dispatch({ type: 'progress', tokens: liveTokens.current });
  }, [settings.liveRows]);

  const scheduleRedraw = useCallback(() => {
    if (settings.redrawMs === 0) return redraw();
    redrawTimer.current ??= setTimeout(redraw, settings.redrawMs);
  }, [redraw, settings.redrawMs]);

  const askApproval = useCallback(
    (call: ToolCall, summary: string) =>
      new Promise<ApprovalChoice>((resolve) => {
        approvalResolver.current = resolve;
        dispatch({ type: 'approval', approval: { call, summary } });
      }),
    [],
  );

  const resolveApproval = useCallback((choice: ApprovalChoice) => {
    const resolve = approvalResolver.current;
    approvalResolver.current = null;
    dispatch({ type: 'approval', approval: null });
    resolve?.(choice);
  }, []);

  /** Approval for a tool that writes: once, for the session, or not at all. */
  const approve = useCallback(
    async (call: ToolCall, summary: string) => {
      if (allowedForSession.current.has(call.function.name)) return true;
      const choice = await askApproval(call, summary);
      if (choice === 'session') allowedForSession.current.add(call.function.name);
      return choice !== 'deny';
    },
    [askApproval],
  );

  const ensureConversation = useCallback(() => {
    if (conversationId.current) return conversationId.current;
    const id = memory?.startConversation(stateRef.current.model) ?? `local-${Date.now()}`;
    conversationId.current = id;
    dispatch({ type: 'conversation', id });
    return id;
  }, [memory]);

  const remember = useCallback(
    (message: WireMessage, cancelled = false) => {
      conversation.current.push(message);
      if (memory && conversationId.current) memory.append(conversationId.current, message, cancelled ? { cancelled } : {});
    },
    [memory],
  );

  const tools = useCallback((): ClientTool[] => {
    if (!stateRef.current.toolsEnabled) return [];
    const memoryTools =
      memory?.tools(
        () => conversationId.current,
        (summary) => approve({ id: 'vault', type: 'function', function: { name: 'memory_vault_save', arguments: '' } }, summary),
      ) ?? [];
    return [...memoryTools, ...(deps.extraTools ?? [])];
  }, [memory, approve, deps.extraTools]);

  /**
   * Sends a question and streams the answer, running tools, until the model is done. `collapsed`:
   * the question with its pastes as their placeholders, shown when the whole is too long.
   */
  const ask = useCallback(
    async (question: string, collapsed = question) => {
      const shown = question.length > TRANSCRIPT_MESSAGE_CHARS ? collapsed : question;
      ensureConversation();
      // Files attached with /attach go with this question, ahead of it.
      const attachments = stateRef.current.attachments;
      if (attachments.length > 0) dispatch({ type: 'attachmentsSent' });
      const files = attachments.map((file) => `Attached file ${file.path}:\n\n\`\`\`\n${file.text}\n\`\`\``);
      dispatch({ type: 'item', kind: 'user', text: attachments.length ? `${shown}\n(attached: ${attachments.map((a) => a.path).join(', ')})` : shown });
      remember({ role: 'user', content: [...files, question].join('\n\n') });
      const controller = new AbortController();
      abort.current = controller;
      dispatch({ type: 'busy', busy: true, at: Date.now() });
      liveText.current = '';
      liveTokens.current = 0;
      let tokens = 0;
      let streamedChars = 0;
      /** What the server said this turn's requests cost, and the model that answered the last one. */
      let reportedMicro = 0;
      let answeredBy: string | null = null;
      let failed = false;
      const asked = stateRef.current.model;
      const before = stateRef.current.balance;
      const system: WireMessage[] = settings.system ? [{ role: 'system', content: settings.system }] : [];
      try {
        await runTurn(client, {
          model: stateRef.current.model,
          messages: [...system, ...conversation.current.slice(-settings.contextMessages)],
          tools: tools(),
          maxToolRounds: settings.maxToolRounds,
          signal: controller.signal,
          approve: (call, tool) =>
            // Vault saves ask with their own, more telling, summary (see tools()).
            call.function.name === 'memory_vault_save'
              ? Promise.resolve(true)
              : approve(call, tool.summarize?.(call.function.arguments) ?? `${tool.definition.function.name}(${call.function.arguments})`),
          onEvent: (event) => {
            if (event.type === 'delta') {
              liveText.current += event.text;
              streamedChars += event.text.length;
              // An estimate while it streams (about four characters a token); the usage corrects it.
              // Drawn with the text, at the redraw's pace: every frame costs the terminal bytes.
              liveTokens.current = tokens + Math.ceil(streamedChars / 4);
              scheduleRedraw();
            } else if (event.type === 'usage') {
              tokens += event.usage.total_tokens;
              streamedChars = 0;
              answeredBy = event.model ?? asked;
              const micro = event.usage.cost !== undefined ? toMicro(event.usage.cost) : 0;
              reportedMicro += micro;
              dispatch({ type: 'spent', model: answeredBy, micro, tokens: event.usage.total_tokens });
              dispatch({ type: 'progress', tokens });
            } else if (event.type === 'tool_call') {
              dispatch({ type: 'item', kind: 'tool', text: `⚙ ${event.call.function.name} ${event.call.function.arguments}` });
              dispatch({ type: 'progress', tool: event.call.function.name });
            } else if (event.type === 'tool_result') {
              dispatch({ type: 'progress', tool: null });
              if (event.declined) dispatch({ type: 'item', kind: 'notice', text: `Declined ${event.call.function.name}.` });
            } else if (event.type === 'message') {
              remember(event.message, event.cancelled);
              if (event.message.role === 'assistant' && event.message.content) {
                if (redrawTimer.current) clearTimeout(redrawTimer.current);
                redrawTimer.current = null;
                // What is still live is the end of this message; earlier parts are in the scrollback.
                const rest = liveText.current;
                liveText.current = '';
                dispatch({ type: 'endLive', text: rest, cancelled: event.cancelled ?? false });
              }
            }
          },
        });
      } catch (error) {
        // The hint for a failure may depend on who the key is: a question sent at once must wait for it.
        await callerRead.current;
        failed = true;
        failure(error);
      } finally {
        if (redrawTimer.current) clearTimeout(redrawTimer.current);
        redrawTimer.current = null;
        if (controller.signal.aborted && liveText.current.trim() === '') notice('Cancelled.');
        liveText.current = '';
        dispatch({ type: 'live', text: '' });
        abort.current = null;
        dispatch({ type: 'busy', busy: false });
        const after = await refreshBalance();
        const balanceDrop = before !== null && after !== null ? Math.max(0, before - after) : null;
        // A cancelled or failed request reports no usage, but may have been charged: the balance says what.
        const maybeUnreported = answeredBy === null || controller.signal.aborted || failed;
        const unreported = maybeUnreported && balanceDrop !== null ? Math.max(0, toMicro(balanceDrop) - reportedMicro) : 0;
        if (unreported > 0) dispatch({ type: 'spent', model: asked, micro: unreported, tokens: 0 });
        const cost = answeredBy !== null ? toCredits(reportedMicro + unreported) : balanceDrop;
        dispatch({ type: 'lastAnswer', tokens, credits: cost, asked, answeredBy });
        await refreshCap();
      }
    },
    [client, ensureConversation, remember, scheduleRedraw, settings, tools, approve, failure, notice, refreshBalance, refreshCap],
  );

  /** Every chat model the server serves, every page of them; read once a session. */
  const chatModels = useRef<string[] | null>(null);
  const listModels = useCallback(async (): Promise<string[]> => {
    if (chatModels.current) return chatModels.current;
    const ids: string[] = [];
    let pageToken: string | null = null;
    do {
      const page = (await client.call(
        { method: 'GET', path: '/models' },
        { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } },
      )) as { data: { id: string; capabilities: string[] }[]; next_page_token: string | null };
      ids.push(...page.data.filter((m) => m.capabilities.includes('chat')).map((m) => m.id));
      pageToken = page.next_page_token;
    } while (pageToken);
    chatModels.current = ids;
    return ids;
  }, [client]);

  /** Switches to a model the server serves; anything else says why not, and nothing changes. */
  const chooseModel = useCallback(
    async (id: string) => {
      let models: string[];
      try {
        models = await listModels();
      } catch (error) {
        return failure(error);
      }
      if (!models.includes(id)) {
        const providers = [...new Set(models.map((m) => m.split('/')[0]))];
        const provider = id.includes('/') ? id.split('/')[0] : null;
        const why =
          provider && !providers.includes(provider)
            ? `No provider '${provider}' is configured on this server (it has ${providers.join(', ')}).`
            : `This server has no chat model '${id}'.`;
        return dispatch({ type: 'item', kind: 'error', text: `${why} /model lists the models.` });
      }
      dispatch({ type: 'model', model: id });
      if (memory && conversationId.current) memory.setModel(conversationId.current, id);
      notice(`Model: ${id}`);
    },
    [listModels, memory, notice, failure],
  );

  /** /model without an id: the models to pick from, the current one highlighted. */
  const openModelPicker = useCallback(async () => {
    try {
      const models = await listModels();
      const index = Math.max(0, models.indexOf(stateRef.current.model));
      dispatch({ type: 'picker', picker: { purpose: 'model', title: 'Model', items: plainItems(models), filter: '', index } });
    } catch (error) {
      failure(error);
    }
  }, [listModels, failure]);

  /** Ctrl+R: the input history, newest first, to search as you type (see picker.ts: only the rows shown are read). */
  const openHistorySearch = useCallback(() => {
    const { history } = stateRef.current;
    if (history.length === 0) return notice('No input history yet.');
    dispatch({ type: 'picker', picker: { purpose: 'history', title: 'History', items: plainItems(history, 'newestFirst'), filter: '', index: 0 } });
  }, [notice]);

  const resume = useCallback(
    (id: string) => {
      const messages = memory?.load(id);
      if (!messages) return notice(`No conversation ${id}. /history lists them.`);
      conversation.current = messages.map((remembered) => remembered.message);
      conversationId.current = id;
      // The conversation goes on with the model it was talking to.
      const model = memory?.modelOf(id);
      if (model) dispatch({ type: 'model', model });
      dispatch({ type: 'conversation', id, items: [{ kind: 'notice', text: `Resumed conversation ${id}.` }, ...messages.flatMap(resumedItem)] });
    },
    [memory, notice],
  );

  /** /resume without an id: the recent conversations, newest first, to pick one from. */
  const openConversationPicker = useCallback(() => {
    const items = (memory?.conversations(RESUMABLE) ?? [])
      .filter((c) => c.id !== conversationId.current)
      .map((c) => ({ value: c.id, label: `${c.updatedAt.slice(0, 16).replace('T', ' ')}  ${c.title}` }));
    if (items.length === 0) return notice('No past conversations.');
    dispatch({ type: 'picker', picker: { purpose: 'conversation', title: 'Resume', items: listItems(items), filter: '', index: 0 } });
  }, [memory, notice]);

  /** What Enter does in a picker: take the highlighted row. */
  const pick = useCallback(
    (choice: PickerItem | undefined) => {
      const picker = stateRef.current.picker;
      dispatch({ type: 'picker', picker: null });
      if (!picker || choice === undefined) return;
      if (picker.purpose === 'model') void chooseModel(choice.value);
      else if (picker.purpose === 'conversation') resume(choice.value);
      else dispatch({ type: 'compose', text: choice.value });
    },
    [chooseModel, resume],
  );

  /**
   * Ctrl+G: the draft, pastes expanded, in $VISUAL / $EDITOR; what was saved becomes the draft.
   * Called once ChatApp has stopped reading keys, so the terminal is the editor's.
   */
  const editDraft = useCallback(() => {
    const { editor, pastes } = stateRef.current;
    const edited = editInExternalEditor(expandPastes(editor.text, pastes), deps.writeRaw);
    dispatch({ type: 'externalEditor', open: false });
    if ('text' in edited) dispatch({ type: 'compose', text: edited.text });
    else notice(edited.error);
  }, [deps.writeRaw, notice]);

  const cancel = useCallback(() => {
    if (approvalResolver.current) resolveApproval('deny');
    abort.current?.abort();
  }, [resolveApproval]);

  const startNew = useCallback(() => {
    conversation.current = [];
    conversationId.current = null;
    dispatch({ type: 'conversation', id: null });
    notice('New conversation.');
  }, [notice]);

  useEffect(() => {
    void refreshBalance();
    void refreshCap();
    callerRead.current = readCaller();
    if (deps.resume) resume(deps.resume);
    return () => {
      abort.current?.abort();
      if (redrawTimer.current) clearTimeout(redrawTimer.current);
    };
    // Once, at start.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** The state with every change so far, rendered or not: what a key handler must act on. */
  const latest = useCallback(() => stateRef.current, []);

  return {
    state,
    latest,
    dispatch,
    ask,
    cancel,
    resolveApproval,
    startNew,
    resume,
    notice,
    failure,
    refreshBalance,
    refreshCap,
    chooseModel,
    openModelPicker,
    openHistorySearch,
    openConversationPicker,
    pick,
    editDraft,
    rememberInput: (text: string) => deps.history?.add(text),
    memory,
    client,
    settings,
    exit: deps.exit,
    writeRaw: deps.writeRaw,
  };
}

export type ChatSession = ReturnType<typeof useChatSession>;
