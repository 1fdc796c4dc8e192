/** The server's sense of time. Tests inject a controllable clock instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and simulations. */
export function manualClock(start: Date | string = '2026-01-01T00:00:00.000Z') {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set(at: Date | string) {
      current = new Date(at).getTime();
    },
    advance(ms: number) {
      current += ms;
    },
  };
}
