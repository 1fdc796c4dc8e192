import type { Store } from '../types.js';

/**
 * One process is the only instance on SQLite: it always leads, and exclusive work of one task
 * runs one call at a time — callers in this process wait their turn, as callers on other
 * instances wait for PostgreSQL's advisory lock (the same contract on both backends).
 */
export function createCoordination(): Store['coordination'] {
  const running = new Map<string, Promise<unknown>>();
  return {
    leads: async () => true,
    exclusively<T>(task: string, work: () => Promise<T>): Promise<T> {
      const before = running.get(task) ?? Promise.resolve();
      const mine = before.catch(() => undefined).then(work);
      const settled = mine.catch(() => undefined);
      running.set(task, settled);
      // The last caller out forgets the task, so finished tasks hold no memory.
      void settled.then(() => {
        if (running.get(task) === settled) running.delete(task);
      });
      return mine;
    },
  };
}
