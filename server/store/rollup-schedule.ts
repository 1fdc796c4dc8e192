/**
 * When pending usage rows are rolled up (usage-rollups.ts): a while after a write, batch after
 * batch until the list is short, one roll at a time, and whatever is left at close. Reports count
 * pending rows either way: this only keeps the list, and the reports' work on it, small.
 */

/** How long written rows wait to be rolled up: at a few thousand requests a second, a few hundred rows a roll. */
export const ROLL_AFTER_MS = 200;
/** The most rows one roll (one transaction) moves. */
export const ROLL_BATCH = 2_000;

/**
 * `roll(limit)` moves at most `limit` pending rows into the rollups and answers how many it
 * moved. Rows are rolled up `afterMs` after a write (null: only when asked, or at close). A roll
 * that fails (the database away) leaves its rows pending to the next one, and is told to `log`
 * once until one succeeds.
 */
export function createRollSchedule(
  roll: (limit: number) => Promise<number> | number,
  options: { afterMs?: number | null; log?: ((line: string) => void) | undefined } = {},
) {
  const { afterMs = ROLL_AFTER_MS, log } = options;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let failing = false;
  // Rolls follow one another on this chain, which never rejects.
  let rolled: Promise<void> = Promise.resolve();

  // Batch after batch; between two the event loop runs (a SQLite roll holds it while it writes),
  // so a long list left by a failing stretch never stalls the requests being served.
  const rollAll = async () => {
    while ((await roll(ROLL_BATCH)) === ROLL_BATCH) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  const rollNext = () => {
    rolled = rolled.then(rollAll).then(
      () => {
        failing = false;
      },
      (error: unknown) => {
        if (!failing) log?.(`usage rollups: a roll failed (${error instanceof Error ? error.message : String(error)}); its rows stay pending, and reports count them`);
        failing = true;
      },
    );
    return rolled;
  };

  return {
    /** A usage row was written: it is rolled up `afterMs` later, or after the roll under way. */
    written() {
      if (timer !== null || closed || afterMs === null) return;
      timer = setTimeout(() => {
        timer = null;
        void rollNext();
      }, afterMs);
      timer.unref();
    },
    /**
     * Rolls up every row pending now, on the same chain as the scheduled rolls (one roll at a
     * time: on PostgreSQL a roll beside it would skip the rows it holds, and answer before they
     * are in); a failure is the caller's.
     */
    async now() {
      const asked = rolled.then(rollAll);
      rolled = asked.catch(() => {});
      await asked;
    },
    /** Rolls up what is pending and stops (the store is still open). */
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await rollNext();
    },
  };
}

export type RollSchedule = ReturnType<typeof createRollSchedule>;
