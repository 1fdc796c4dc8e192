import type { Clock } from '../../../clock.js';
import type { CancelSignal } from '../../../cancellation.js';

/** Retries of one target before moving on, and how long they may wait in all. */
export interface RetryPolicy {
  /** Retries of the same target after its first try (so 2 means up to three tries). */
  retries: number;
  baseDelayMs: number;
  /** The longest single wait; a `retry-after` beyond it moves on instead of waiting. */
  maxDelayMs: number;
  /** Every wait of one request together, from its first try: past it, no more waiting. */
  totalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 8_000, totalMs: 20_000 };

/** Exponential backoff with full jitter in its upper half: retry n waits base·2ⁿ/2 … base·2ⁿ. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = policy.baseDelayMs * 2 ** retry;
  return Math.min(policy.maxDelayMs, exponential / 2 + random() * (exponential / 2));
}

/**
 * How long to wait before retry `retry` of the same target: the upstream's `retry-after` when it
 * gave one, else the backoff; null when the wait is too long for one step or for what is left
 * of the total (then the request moves on to another target instead).
 */
export function waitBefore(retry: number, retryAfterMs: number | null, policy: RetryPolicy, waitedMs: number, random?: () => number): number | null {
  const delay = retryAfterMs ?? backoffMs(retry, policy, random);
  if (delay > policy.maxDelayMs || waitedMs + delay > policy.totalMs) return null;
  return delay;
}

export type Sleep = (ms: number, signal: CancelSignal) => Promise<void>;

/**
 * Waits `ms` by the clock: real time for the system clock; a manual clock (tests) also ends the
 * wait as soon as it is moved past its end, so a test proves a wait by moving time, not by sleeping.
 */
export function clockSleep(clock: Clock): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      const until = clock.now().getTime() + ms;
      let done = false;
      const finish = (error?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (error === undefined) resolve();
        else reject(error);
      };
      const timer = setTimeout(() => finish(), ms);
      signal.addEventListener('abort', () => finish(signal.reason), { once: true });
      clock.onJump?.(() => {
        if (clock.now().getTime() >= until) finish();
      });
    });
}
