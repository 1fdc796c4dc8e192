import type { UsageEvent } from '../store/types.js';

/**
 * What inference tells whoever watches it — the metrics (`GET /metrics`) and the Providers screen.
 * Services call it; they never know who listens. Every method must be cheap and must not throw:
 * it runs on the metered path.
 */
export interface InferenceObserver {
  /** A metered request ended: its usage row (with what was charged) was written. */
  usageRecorded(row: UsageEvent, chargedMicro: number): void;
  /**
   * One upstream attempt ended, inside a route or not. `outcome` is 'ok' or the error class
   * (connection, timeout, rate_limited, server_error, overloaded, auth, context_length, ...).
   * `retry`: it repeated a target already tried; `fallback`: it moved on to another target.
   */
  attemptEnded(attempt: {
    route: string | null;
    provider: string;
    model: string;
    outcome: string;
    latencyMs: number;
    retry: boolean;
    fallback: boolean;
  }): void;
  /** A target's circuit breaker changed state (`target` is its `<provider>/<model>` id). */
  breakerChanged(target: string, state: 'closed' | 'open' | 'half_open'): void;
  /** Holds of requests in flight: +1 when a hold is taken, -1 when it is settled or released. */
  holdsInFlight(delta: 1 | -1): void;
}

/** The observer of a server nobody watches. */
export const nobodyWatching: InferenceObserver = {
  usageRecorded() {},
  attemptEnded() {},
  breakerChanged() {},
  holdsInFlight() {},
};
