import { useCallback, useReducer, useRef, useState } from 'react';
import { itemIdCounter, stampItemIds, type ChatAction } from './item-ids.js';
import { chatReducer, initialState, type ChatState } from './state.js';

/** What every chat hook changes the state through, and reads it from. */
export interface ChatStore {
  dispatch(action: ChatAction): void;
  /** The state with every change so far, rendered or not: what a key handler must act on. */
  latest(): ChatState;
}

/** The chat's state around its pure reducer: item ids are made here, as events are. */
export function useChatState(options: Parameters<typeof initialState>[0]): ChatStore & { state: ChatState } {
  const [state, enqueue] = useReducer(chatReducer, options, initialState);
  const stateRef = useRef<ChatState>(state);
  stateRef.current = state;
  const [nextItemId] = useState(itemIdCounter);
  /**
   * Every change goes through here, so `stateRef` holds its result at once: keys that arrive
   * before React has rendered the previous one (two keys in one read) must build on it.
   */
  const dispatch = useCallback((action: ChatAction) => {
    const event = stampItemIds(action, nextItemId);
    stateRef.current = chatReducer(stateRef.current, event);
    enqueue(event);
  }, [nextItemId]);
  const latest = useCallback(() => stateRef.current, []);
  return { state, dispatch, latest };
}
