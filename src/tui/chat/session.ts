import { useCallback, useEffect } from 'react';
import type { Client } from '../../client/client.js';
import type { ChatMemory } from '../../chat/memory-port.js';
import type { ClientTool, InputHistory } from '../../chat/types.js';
import { editInExternalEditor } from './external-editor.js';
import { expandPastes } from './paste.js';
import { plainItems, type PickerItem } from './picker.js';
import { useAccount } from './use-account.js';
import { useApproval } from './use-approval.js';
import { useChatState } from './use-chat-state.js';
import { useConversation } from './use-conversation.js';
import { useModels } from './use-models.js';
import { useTurn, type TurnSettings } from './use-turn.js';

export { liveRoom } from './use-turn.js';
export type { ApprovalChoice } from './use-approval.js';
export type { InputHistory } from '../../chat/types.js';

export interface ChatSettings extends TurnSettings {
  model: string;
  toolsEnabled: boolean;
  maxFileBytes: number;
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

/**
 * The chat's state and everything that changes it, composed of hooks with one job each (the
 * turn, approvals, models, the conversation, the account) around a pure reducer; the components only draw.
 */
export function useChatSession(deps: ChatDeps) {
  const { client, memory, settings } = deps;
  const store = useChatState({
    model: settings.model,
    toolsEnabled: settings.toolsEnabled,
    history: deps.history?.entries() ?? [],
    maxSpend: deps.maxSpend ?? null,
  });
  const { state, dispatch, latest } = store;
  const account = useAccount(client, store, deps.maxSpend ?? null);
  const { notice, failure } = account;
  const conversation = useConversation(memory, store, notice);
  const approval = useApproval(store);
  const models = useModels(client, store, { notice, failure, chosen: conversation.setModel });
  const turn = useTurn({ client, memory, settings, extraTools: deps.extraTools, store, conversation, approval, account });

  /** Ctrl+R: the input history, newest first, to search as you type (see picker.ts: only the rows shown are read). */
  const openHistorySearch = useCallback(() => {
    const { history } = latest();
    if (history.length === 0) return notice('No input history yet.');
    dispatch({ type: 'picker', picker: { purpose: 'history', title: 'History', items: plainItems(history, 'newestFirst'), filter: '', index: 0 } });
  }, [notice, dispatch, latest]);

  /** What Enter does in a picker: take the highlighted row. */
  const { chooseModel } = models;
  const { resume } = conversation;
  const pick = useCallback(
    (choice: PickerItem | undefined) => {
      const picker = latest().picker;
      dispatch({ type: 'picker', picker: null });
      if (!picker || choice === undefined) return;
      if (picker.purpose === 'model') void chooseModel(choice.value);
      else if (picker.purpose === 'conversation') resume(choice.value);
      else dispatch({ type: 'compose', text: choice.value });
    },
    [chooseModel, resume, dispatch, latest],
  );

  /**
   * Ctrl+G: the draft, pastes expanded, in $VISUAL / $EDITOR; what was saved becomes the draft.
   * Called once ChatApp has stopped reading keys, so the terminal is the editor's.
   */
  const editDraft = useCallback(() => {
    const { editor, pastes } = latest();
    const edited = editInExternalEditor(expandPastes(editor.text, pastes), deps.writeRaw);
    dispatch({ type: 'externalEditor', open: false });
    if ('text' in edited) dispatch({ type: 'compose', text: edited.text });
    else notice(edited.error);
  }, [deps.writeRaw, notice, dispatch, latest]);

  useEffect(() => {
    void account.refreshBalance();
    void account.refreshCap();
    account.readCaller();
    if (deps.resume) resume(deps.resume);
    return turn.stop;
    // Once, at start: the hooks' functions are new each render, and must not restart it.
  }, []);

  return {
    state,
    latest,
    dispatch,
    ask: turn.ask,
    cancel: turn.cancel,
    resolveApproval: approval.resolveApproval,
    startNew: conversation.startNew,
    resume,
    notice,
    failure,
    refreshBalance: account.refreshBalance,
    refreshCap: account.refreshCap,
    chooseModel,
    openModelPicker: models.openModelPicker,
    openHistorySearch,
    openConversationPicker: conversation.openPicker,
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
