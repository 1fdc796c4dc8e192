/** The server's sense of time. Tests inject a controllable clock instead of sleeping. */
export interface Clock {
  now(): Date;
  /**
   * Calls `listener` whenever the time jumps (a manual clock moved by a test), so work due at a
   * time — a subscription period's end — happens then, as it would when real time reaches it.
   */
  onJump?(listener: () => void): void;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and simulations. */
export function manualClock(start: Date | string = '2026-01-01T00:00:00.000Z') {
  let current = new Date(start).getTime();
  const listeners: (() => void)[] = [];
  const jumped = () => {
    for (const listener of listeners) listener();
  };
  return {
    now: () => new Date(current),
    onJump(listener: () => void) {
      listeners.push(listener);
    },
    set(at: Date | string) {
      current = new Date(at).getTime();
      jumped();
    },
    advance(ms: number) {
      current += ms;
      jumped();
    },
  };
}
