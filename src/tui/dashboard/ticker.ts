/**
 * What repeats on the dashboard (the auto-refresh, a checkout's watch) asks this for its beat.
 * Injected, so tests move time by hand instead of sleeping.
 */
export interface Ticker {
  /** Calls `run` every `ms` until the returned function is called. */
  every(ms: number, run: () => void): () => void;
}

export const realTicker: Ticker = {
  every(ms, run) {
    const timer = setInterval(run, ms);
    return () => clearInterval(timer);
  },
};

/** A ticker that moves only when told to (tests): `advance(ms)` runs each beat that falls due. */
export function manualTicker() {
  let now = 0;
  const beats = new Set<{ ms: number; next: number; run: () => void }>();
  return {
    every(ms: number, run: () => void) {
      const beat = { ms, next: now + ms, run };
      beats.add(beat);
      return () => void beats.delete(beat);
    },
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...beats].filter((beat) => beat.next <= until).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.run();
      }
      now = until;
    },
    /** Whether something repeats every `ms` now. */
    has(ms: number) {
      return [...beats].some((beat) => beat.ms === ms);
    },
  } satisfies Ticker & Record<string, unknown>;
}

export type ManualTicker = ReturnType<typeof manualTicker>;
