import type { Store } from '../../store/types.js';

/**
 * Runs the changes to one subscriber's subscription one after another: each reads the state the
 * previous one left, so two upgrades at once are two upgrades in a row (or the second finds there
 * is nothing left to upgrade), never two charges against one starting plan. In this process a queue
 * per subscriber keeps the order (and keeps waiters off the database's connections); across
 * instances the store's exclusive section does.
 */
export function createOneAtATime(coordination: Store['coordination']) {
  const queues = new Map<string, Promise<unknown>>();

  return async function oneAtATime<T>(subscriber: string, change: () => Promise<T>): Promise<T> {
    const before = queues.get(subscriber) ?? Promise.resolve();
    // The change after a failed one still runs: a failure belongs to its own caller.
    const mine = before.catch(() => {}).then(() => coordination.exclusively(`subscription-change:${subscriber}`, change));
    queues.set(subscriber, mine);
    try {
      return await mine;
    } finally {
      if (queues.get(subscriber) === mine) queues.delete(subscriber);
    }
  };
}

export type OneAtATime = ReturnType<typeof createOneAtATime>;
