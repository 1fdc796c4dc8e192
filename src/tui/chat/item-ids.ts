import type { ChatEvent, ConversationItem } from './state.js';

/** The events that add transcript items: each carries the ids of the items it adds. */
type ItemEvent = Extract<ChatEvent, { type: 'item' | 'commitLive' | 'endLive' }>;
type ConversationEvent = Extract<ChatEvent, { type: 'conversation' }>;
type WithoutItemId<E> = E extends unknown ? Omit<E, 'itemId'> : never;

/** An event as the chat's code raises it; `stampItemIds` gives the items it adds their ids. */
export type ChatAction =
  | Exclude<ChatEvent, ItemEvent | ConversationEvent>
  | WithoutItemId<ItemEvent>
  | (Omit<ConversationEvent, 'items'> & { items?: Omit<ConversationItem, 'itemId'>[] });

/**
 * A session's item ids, counted from 1. The ids are made here, when an event is made, not in the
 * reducer: React may run a reducer twice on one event, and both runs must make the same item.
 */
export function itemIdCounter(): () => number {
  let last = 0;
  return () => ++last;
}

export function stampItemIds(action: ChatAction, nextId: () => number): ChatEvent {
  switch (action.type) {
    case 'item':
    case 'commitLive':
    case 'endLive':
      return { ...action, itemId: nextId() } as ChatEvent;
    case 'conversation': {
      const { items, ...conversation } = action;
      return items ? { ...conversation, items: items.map((entry) => ({ ...entry, itemId: nextId() })) } : conversation;
    }
    default:
      return action;
  }
}
