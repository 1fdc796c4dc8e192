/**
 * Work that arrives in one turn of the event loop, gathered by key and written once per key at the
 * turn's end: how the shared store makes one statement (or one transaction) of many requests'.
 * Items keep their order of arrival within a group. `write` answers every item of its group
 * itself (resolving or rejecting the caller's promise) and does not reject; `drain` writes what
 * is gathered and waits for every write still in flight (closing the store loses nothing).
 */
export function createTurnGroups<Head, Item>(write: (head: Head, items: Item[]) => Promise<void>) {
  let queued = new Map<string, { head: Head; items: Item[] }>();
  const inFlight = new Set<Promise<void>>();

  const flush = () => {
    const groups = queued;
    queued = new Map();
    for (const { head, items } of groups.values()) {
      // A writer that rejected anyway has answered nobody it could: nothing more to do here.
      const done = write(head, items).catch(() => undefined);
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }
  };

  return {
    /** Adds `item` to the group `id` of this turn (`head`: what the group's write needs, from its first item). */
    add(id: string, head: Head, item: Item): void {
      if (queued.size === 0) setImmediate(flush);
      const group = queued.get(id);
      if (group) group.items.push(item);
      else queued.set(id, { head, items: [item] });
    },

    async drain(): Promise<void> {
      if (queued.size > 0) flush();
      await Promise.all(inFlight);
    },
  };
}
