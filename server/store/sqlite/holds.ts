/**
 * Credits held by requests in flight, per account. In memory: SQLite means one server process,
 * and better-sqlite3 is synchronous, so checking the balance and reserving against it cannot be
 * interleaved. Holds end with their request; after a crash nothing is in flight, so none survive.
 * (A shared backend keeps holds in its database instead.)
 */
export function createHolds() {
  const held = new Map<number, number>();
  return {
    of: (accountId: number) => held.get(accountId) ?? 0,
    add(accountId: number, micro: number) {
      held.set(accountId, (held.get(accountId) ?? 0) + micro);
    },
    release(accountId: number, micro: number) {
      const left = (held.get(accountId) ?? 0) - micro;
      if (left > 0) held.set(accountId, left);
      else held.delete(accountId);
    },
  };
}

export type Holds = ReturnType<typeof createHolds>;
