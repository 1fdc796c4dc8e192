import { useCallback, useRef } from 'react';
import type { ChatMemory, RememberedMessage } from '../../chat/memory-port.js';
import type { WireMessage } from '../../chat/types.js';
import { listItems } from './picker.js';
import type { ChatStore } from './use-chat-state.js';

/** Past conversations /resume offers. */
const RESUMABLE = 50;
/**
 * Characters of a message the transcript shows whole (a question just sent, a message of a
 * resumed conversation): Ink draws about 30 KB a second, and a 100 KB paste must not hold the
 * screen for seconds. A longer question shows with its pastes collapsed; a longer past message, cut.
 */
export const TRANSCRIPT_MESSAGE_CHARS = 8000;

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

/** The conversation: its messages (what each question is sent with), its id, and the memory that keeps it. */
export function useConversation(memory: ChatMemory | null, { dispatch, latest }: ChatStore, notice: (text: string) => void) {
  const messages = useRef<WireMessage[]>([]);
  const conversationId = useRef<string | null>(null);

  const id = useCallback(() => conversationId.current, []);

  /** The conversation's id, started in the memory with the first question. */
  const ensure = useCallback(() => {
    if (conversationId.current) return conversationId.current;
    const started = memory?.startConversation(latest().model) ?? `local-${Date.now()}`;
    conversationId.current = started;
    dispatch({ type: 'conversation', id: started });
    return started;
  }, [memory, dispatch, latest]);

  const remember = useCallback(
    (message: WireMessage, cancelled = false) => {
      messages.current.push(message);
      if (memory && conversationId.current) memory.append(conversationId.current, message, cancelled ? { cancelled } : {});
    },
    [memory],
  );

  /** The most recent messages, `count` of them. */
  const recent = useCallback((count: number) => messages.current.slice(-count), []);

  /** The memory keeps the model the conversation goes on with. */
  const setModel = useCallback(
    (model: string) => {
      if (memory && conversationId.current) memory.setModel(conversationId.current, model);
    },
    [memory],
  );

  const resume = useCallback(
    (resumed: string) => {
      const loaded = memory?.load(resumed);
      if (!loaded) return notice(`No conversation ${resumed}. /history lists them.`);
      messages.current = loaded.map((remembered) => remembered.message);
      conversationId.current = resumed;
      // The conversation goes on with the model it was talking to.
      const model = memory?.modelOf(resumed);
      if (model) dispatch({ type: 'model', model });
      dispatch({
        type: 'conversation',
        id: resumed,
        items: [{ kind: 'notice', text: `Resumed conversation ${resumed}.` }, ...loaded.flatMap(resumedItem)],
      });
    },
    [memory, notice, dispatch],
  );

  /** /resume without an id: the recent conversations, newest first, to pick one from. */
  const openPicker = useCallback(() => {
    const items = (memory?.conversations(RESUMABLE) ?? [])
      .filter((c) => c.id !== conversationId.current)
      .map((c) => ({ value: c.id, label: `${c.updatedAt.slice(0, 16).replace('T', ' ')}  ${c.title}` }));
    if (items.length === 0) return notice('No past conversations.');
    dispatch({ type: 'picker', picker: { purpose: 'conversation', title: 'Resume', items: listItems(items), filter: '', index: 0 } });
  }, [memory, notice, dispatch]);

  const startNew = useCallback(() => {
    messages.current = [];
    conversationId.current = null;
    dispatch({ type: 'conversation', id: null });
    notice('New conversation.');
  }, [notice, dispatch]);

  return { id, ensure, remember, recent, setModel, resume, openPicker, startNew };
}

export type Conversation = ReturnType<typeof useConversation>;
