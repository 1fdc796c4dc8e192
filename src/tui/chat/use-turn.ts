import { useCallback, useRef } from 'react';
import type { Client } from '../../client/client.js';
import { runTurn } from '../../chat/engine.js';
import type { ChatMemory } from '../../chat/memory-port.js';
import type { ClientTool, WireMessage } from '../../chat/types.js';
import { planCommit } from './live-split.js';
import { markdownWidth } from './markdown.js';
import { toCredits, toMicro } from './spend.js';
import type { Account } from './use-account.js';
import type { Approval } from './use-approval.js';
import type { ChatStore } from './use-chat-state.js';
import { TRANSCRIPT_MESSAGE_CHARS, type Conversation } from './use-conversation.js';
import { useTerminalSize } from '../shared/use-terminal-size.js';

/** Rows around the live answer while it streams: its margin, the composer, the status line, and one spare. */
const LIVE_CHROME_ROWS = 5;
/** Rows an approval dialog takes below the answer. */
const APPROVAL_ROWS = 6;

/** The rows the live answer may take: the composer, the status line, margins and a dialog take the rest. */
export function liveRoom(rows: number, liveRows: number, approval: boolean): number {
  const room = rows - LIVE_CHROME_ROWS - (approval ? APPROVAL_ROWS : 0);
  return Math.max(2, liveRows > 0 ? Math.min(liveRows, room) : room);
}

export interface TurnSettings {
  system?: string;
  maxToolRounds: number;
  /** How many recent messages are sent with each question. */
  contextMessages: number;
  /** Rows the live answer may use before its finished part moves to the scrollback (0: as the terminal allows). */
  liveRows: number;
  /** How often the streaming text is redrawn (0: at every delta, for tests). */
  redrawMs: number;
}

interface TurnDeps {
  client: Client;
  memory: ChatMemory | null;
  settings: TurnSettings;
  extraTools: ClientTool[] | undefined;
  store: ChatStore;
  conversation: Conversation;
  approval: Approval;
  account: Account;
}

/** A question and its answer: sent, streamed into the live region and the scrollback, tools run, cost counted; or cancelled. */
export function useTurn({ client, memory, settings, extraTools, store, conversation, approval, account }: TurnDeps) {
  const { dispatch, latest } = store;
  const abort = useRef<AbortController | null>(null);
  const liveText = useRef('');
  const liveTokens = useRef(0);
  const redrawTimer = useRef<NodeJS.Timeout | null>(null);
  /**
   * The last turn's balance and cap reads, which run after the prompt is back: a question sent
   * before they end waits for them, since what it cost (a failed one above all) is measured from
   * the balance they leave.
   */
  const settling = useRef<Promise<void>>(Promise.resolve());
  const size = useTerminalSize();
  const sizeRef = useRef(size);
  sizeRef.current = size;

  const stopRedraw = useCallback(() => {
    if (redrawTimer.current) clearTimeout(redrawTimer.current);
    redrawTimer.current = null;
  }, []);

  /**
   * Draws the live answer, first handing its finished parts to the scrollback so that the live
   * region stays shorter than the terminal (see live-split.ts).
   */
  const redraw = useCallback(() => {
    redrawTimer.current = null;
    const { columns, rows } = sizeRef.current;
    const maxRows = liveRoom(rows, settings.liveRows, latest().approval !== null);
    let text = liveText.current;
    const next = () => planCommit(text, { width: markdownWidth(columns), columns, maxRows, printed: latest().livePrinted });
    for (let plan = next(); plan; plan = next()) {
      if (plan.kind === 'keep') {
        dispatch({ type: 'commitLive', text: plan.through, gap: false, keep: plan.printed ?? plan.through });
        if (plan.live !== undefined) text = plan.live;
      } else {
        dispatch({ type: 'commitLive', text: plan.commit, gap: plan.gap, ...(plan.continuesItem ? { continuesItem: true } : {}) });
        text = plan.rest;
      }
    }
    liveText.current = text;
    dispatch({ type: 'live', text });
    dispatch({ type: 'progress', tokens: liveTokens.current });
  }, [settings.liveRows, dispatch, latest]);

  const scheduleRedraw = useCallback(() => {
    if (settings.redrawMs === 0) return redraw();
    redrawTimer.current ??= setTimeout(redraw, settings.redrawMs);
  }, [redraw, settings.redrawMs]);

  const { approve } = approval;
  const tools = useCallback((): ClientTool[] => {
    if (!latest().toolsEnabled) return [];
    const memoryTools =
      memory?.tools(conversation.id, (summary) =>
        approve({ id: 'vault', type: 'function', function: { name: 'memory_vault_save', arguments: '' } }, summary),
      ) ?? [];
    return [...memoryTools, ...(extraTools ?? [])];
  }, [memory, approve, extraTools, conversation.id, latest]);

  /**
   * Sends a question and streams the answer, running tools, until the model is done. `collapsed`:
   * the question with its pastes as their placeholders, shown when the whole is too long.
   */
  const ask = useCallback(
    async (question: string, collapsed = question) => {
      const shown = question.length > TRANSCRIPT_MESSAGE_CHARS ? collapsed : question;
      conversation.ensure();
      // Files attached with /attach go with this question, ahead of it.
      const attachments = latest().attachments;
      if (attachments.length > 0) dispatch({ type: 'attachmentsSent' });
      const files = attachments.map((file) => `Attached file ${file.path}:\n\n\`\`\`\n${file.text}\n\`\`\``);
      dispatch({ type: 'item', kind: 'user', text: attachments.length ? `${shown}\n(attached: ${attachments.map((a) => a.path).join(', ')})` : shown });
      conversation.remember({ role: 'user', content: [...files, question].join('\n\n') });
      const controller = new AbortController();
      abort.current = controller;
      dispatch({ type: 'busy', busy: true, at: Date.now() });
      liveText.current = '';
      liveTokens.current = 0;
      await settling.current;
      let tokens = 0;
      let streamedChars = 0;
      /** What the server said this turn's requests cost, and the model that answered the last one. */
      let reportedMicro = 0;
      let answeredBy: string | null = null;
      let failed = false;
      const asked = latest().model;
      const before = latest().balance;
      const system: WireMessage[] = settings.system ? [{ role: 'system', content: settings.system }] : [];
      try {
        await runTurn(client, {
          model: latest().model,
          messages: [...system, ...conversation.recent(settings.contextMessages)],
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
              conversation.remember(event.message, event.cancelled);
              if (event.message.role === 'assistant' && event.message.content) {
                stopRedraw();
                // What is still live is the end of this message; earlier parts are in the scrollback.
                const rest = liveText.current;
                liveText.current = '';
                dispatch({ type: 'endLive', text: rest, cancelled: event.cancelled ?? false });
              }
            }
          },
        });
      } catch (error) {
        // The hint for a failure may depend on who the key is.
        await account.failureForCaller(error);
        failed = true;
      } finally {
        stopRedraw();
        if (controller.signal.aborted && liveText.current.trim() === '') account.notice('Cancelled.');
        liveText.current = '';
        dispatch({ type: 'live', text: '' });
        abort.current = null;
        let settled = () => {};
        settling.current = new Promise<void>((resolve) => (settled = resolve));
        dispatch({ type: 'busy', busy: false });
        try {
          const after = await account.refreshBalance();
          const balanceDrop = before !== null && after !== null ? Math.max(0, before - after) : null;
          // A cancelled or failed request reports no usage, but may have been charged: the balance says what.
          const maybeUnreported = answeredBy === null || controller.signal.aborted || failed;
          const unreported = maybeUnreported && balanceDrop !== null ? Math.max(0, toMicro(balanceDrop) - reportedMicro) : 0;
          if (unreported > 0) dispatch({ type: 'spent', model: asked, micro: unreported, tokens: 0 });
          const cost = answeredBy !== null ? toCredits(reportedMicro + unreported) : balanceDrop;
          dispatch({ type: 'lastAnswer', tokens, credits: cost, asked, answeredBy });
          await account.refreshCap();
        } finally {
          settled();
        }
      }
    },
    [client, conversation, scheduleRedraw, stopRedraw, settings, tools, approve, account, dispatch, latest],
  );

  /** Esc, Ctrl+C: an approval still asked is denied, and the answer stops. */
  const cancel = useCallback(() => {
    approval.denyPending();
    abort.current?.abort();
  }, [approval]);

  /** The chat is leaving: nothing streams or redraws after it. */
  const stop = useCallback(() => {
    abort.current?.abort();
    stopRedraw();
  }, [stopRedraw]);

  return { ask, cancel, stop };
}
