/** The most items one write takes: a larger group waits for the next write of its key. */
export const MOST_PER_WRITE = 200;

/**
 * Work gathered by key and written once per key: how the shared store makes one statement (or one
 * transaction) of many requests'. Items that arrive in one turn of the event loop go together at
 * the turn's end; while a key's write is in flight, the items of that key that arrive wait, and go
 * together when it ends — one write in flight per key. Under load that makes groups larger rather
 * than writes more: the writes of one key lock the same rows (an account's), so a second one
 * in flight would only have waited on the first inside PostgreSQL, paying a statement's start-up
 * and a connection of the pool for it. Items keep their order of arrival within a key. `write`
 * answers every item of its group itself (resolving or rejecting the caller's promise) and does
 * not reject; `drain` writes what is gathered and waits until every write has ended (closing the
 * store loses nothing).
 */
export function createTurnGroups<Head, Item>(write: (head: Head, items: Item[]) => Promise<void>) {
  let queued = new Map<string, { head: Head; items: Item[] }>();
  /** Items of a key whose write is in flight: its next write. */
  const waiting = new Map<string, { head: Head; items: Item[] }>();
  /** The write in flight of each key. */
  const writing = new Map<string, Promise<void>>();

  const start = (id: string, head: Head, items: Item[]) => {
    const taken = items.length > MOST_PER_WRITE ? items.splice(0, MOST_PER_WRITE) : items;
    if (taken !== items) waiting.set(id, { head, items });
    // A writer that rejected (or threw) anyway has answered nobody it could: nothing more to do here.
    let written: Promise<void>;
    try {
      written = write(head, taken);
    } catch (error) {
      written = Promise.reject(error);
    }
    const done = written
      .catch(() => undefined)
      .then(() => {
        writing.delete(id);
        const next = waiting.get(id);
        if (next) {
          waiting.delete(id);
          start(id, next.head, next.items);
        }
      });
    writing.set(id, done);
  };

  // Only keys with no write in flight are queued (add() sends the others to wait), and only a
  // flush starts a key's first write: each group queued here starts its key's write.
  const flush = () => {
    const groups = queued;
    queued = new Map();
    for (const [id, { head, items }] of groups) start(id, head, items);
  };

  return {
    /** Adds `item` to the group `id` (`head`: what the group's write needs, from its first item). */
    add(id: string, head: Head, item: Item): void {
      const behind = writing.has(id) ? waiting : queued;
      if (behind === queued && queued.size === 0) setImmediate(flush);
      const group = behind.get(id);
      if (group) group.items.push(item);
      else behind.set(id, { head, items: [item] });
    },

    async drain(): Promise<void> {
      // Items added while it waits are written too.
      while (queued.size > 0 || writing.size > 0) {
        if (queued.size > 0) flush();
        await Promise.all(writing.values());
      }
    },
  };
}
