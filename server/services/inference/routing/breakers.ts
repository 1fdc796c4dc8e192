import type { Clock } from '../../../clock.js';
import type { BreakerRecord, BreakerStore } from '../../../store/types.js';
import type { InferenceObserver } from '../../../metrics/inference-observer.js';

export interface BreakerPolicy {
  /** Failures within `windowMs` (from the first of them) that open the breaker. */
  failureThreshold: number;
  windowMs: number;
  /** How long an open breaker sends nothing before one probe is let through. */
  cooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerPolicy = { failureThreshold: 5, windowMs: 30_000, cooldownMs: 30_000 };

/** The record after a failure: counted in its window; at the threshold, or on a failed probe, open. */
export function afterFailure(current: BreakerRecord | null, now: number, policy: BreakerPolicy): BreakerRecord {
  if (current?.state === 'half_open') return { state: 'open', failures: 0, windowStartMs: now, sinceMs: now };
  // Already open (a request admitted before it opened): the cooldown keeps running from when it opened.
  if (current?.state === 'open') return current;
  const inWindow = current !== null && current.failures > 0 && now - current.windowStartMs < policy.windowMs;
  const failures = inWindow ? current.failures + 1 : 1;
  const windowStartMs = inWindow ? current.windowStartMs : now;
  return failures >= policy.failureThreshold
    ? { state: 'open', failures: 0, windowStartMs: now, sinceMs: now }
    : { state: 'closed', failures, windowStartMs, sinceMs: current?.sinceMs ?? now };
}

/**
 * Circuit breakers per target: open after `failureThreshold` failures in a window, skipped while
 * open, half-open after the cooldown (one probe, claimed atomically in the store, so one instance
 * of many sends it), closed by the probe's success or opened again by its failure. Times are the
 * injected clock's; the store is per process (SQLite) or shared (PostgreSQL).
 */
export function createBreakers(deps: { store: BreakerStore; clock: Clock; observer: InferenceObserver; policy?: BreakerPolicy }) {
  const policy = deps.policy ?? DEFAULT_BREAKER;
  const now = () => deps.clock.now().getTime();
  /**
   * The state each target was last seen in by this instance, told to the observer when it changes:
   * on PostgreSQL another instance may have opened or closed a breaker, and this one's metrics
   * follow when it reads it.
   */
  const known = new Map<string, BreakerRecord['state']>();
  const seen = (target: string, record: BreakerRecord | null) => {
    const state = record?.state ?? 'closed';
    if ((known.get(target) ?? 'closed') === state) return;
    known.set(target, state);
    deps.observer.breakerChanged(target, state);
  };

  return {
    policy,
    /**
     * Whether a request may go to `target` now: `closed` (go), `probe` (go, as the probe that a
     * due breaker lets through, claimed by whoever asks first), or null (skip it unsent).
     */
    async admit(target: string): Promise<'closed' | 'probe' | null> {
      const record = await deps.store.read(target);
      seen(target, record);
      if (!record || record.state === 'closed') return 'closed';
      if (now() - record.sinceMs < policy.cooldownMs) return null;
      // Due for a probe (or a probe that never reported back, past another cooldown): claim it.
      let claimed = false;
      const after = await deps.store.update(target, (current) => {
        if (!current || current.state === 'closed') return null;
        if (now() - current.sinceMs < policy.cooldownMs) return null;
        claimed = true;
        return { ...current, state: 'half_open', sinceMs: now() };
      });
      seen(target, after);
      if (claimed) return 'probe';
      return after?.state === 'closed' ? 'closed' : null;
    },

    /** A probe answered: its breaker closes (one already closed is left as it is, with no write). */
    async succeeded(target: string): Promise<void> {
      const record = await deps.store.read(target);
      if (!record || record.state === 'closed') return seen(target, record);
      const after = await deps.store.update(target, (current) => {
        if (!current || current.state === 'closed') return null;
        return { state: 'closed', failures: 0, windowStartMs: now(), sinceMs: now() };
      });
      seen(target, after);
    },

    /** A target failed in a way that is its own (never the caller's). */
    async failed(target: string): Promise<void> {
      seen(target, await deps.store.update(target, (current) => afterFailure(current, now(), policy)));
    },

    /** A target's state as of now (an open breaker past its cooldown reads half_open: the next request probes). */
    async stateOf(target: string): Promise<BreakerRecord['state']> {
      const record = await deps.store.read(target);
      if (!record) return 'closed';
      return record.state === 'open' && now() - record.sinceMs >= policy.cooldownMs ? 'half_open' : record.state;
    },
  };
}

export type Breakers = ReturnType<typeof createBreakers>;
