/**
 * Each upstream target's recent state, per instance, for the Providers screen: its breaker (as
 * the routes' breakers last reported it), its attempts, and over its last WINDOW attempts the
 * error rate and the median latency. Memory is bounded: WINDOW latencies per target, and targets
 * are the configured `<provider>/<model>` ids.
 */

export type BreakerState = 'closed' | 'open' | 'half_open';

/** How many recent attempts the error rate and the median are taken over. */
export const WINDOW = 200;

export interface TargetStatus {
  target: string;
  breaker: BreakerState;
  /** Attempts since the server started. */
  requests: number;
  /** Failed attempts since the server started. */
  errors: number;
  /** Share of the last (up to WINDOW) attempts that failed, 0..1; null before any attempt. */
  errorRate: number | null;
  /** Median latency of the last (up to WINDOW) attempts, milliseconds; null before any attempt. */
  p50LatencyMs: number | null;
  /** The last attempt's outcome (`ok` or its error class) and when it ended. */
  lastOutcome: string | null;
  lastAt: string | null;
}

interface Target {
  breaker: BreakerState;
  requests: number;
  errors: number;
  /** Ring buffers of the last WINDOW attempts. */
  latencies: number[];
  failed: boolean[];
  next: number;
  lastOutcome: string | null;
  lastAt: string | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export function createTargetStatus() {
  const targets = new Map<string, Target>();
  const targetOf = (id: string) => {
    let target = targets.get(id);
    if (!target) {
      target = { breaker: 'closed', requests: 0, errors: 0, latencies: [], failed: [], next: 0, lastOutcome: null, lastAt: null };
      targets.set(id, target);
    }
    return target;
  };

  return {
    attempt(id: string, outcome: string, latencyMs: number, at: string) {
      const target = targetOf(id);
      const failed = outcome !== 'ok';
      target.requests += 1;
      if (failed) target.errors += 1;
      target.latencies[target.next] = latencyMs;
      target.failed[target.next] = failed;
      target.next = (target.next + 1) % WINDOW;
      target.lastOutcome = outcome;
      target.lastAt = at;
    },
    breaker(id: string, state: BreakerState) {
      targetOf(id).breaker = state;
    },
    /** Every target seen, by id. */
    list(): TargetStatus[] {
      return [...targets.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, t]) => ({
          target: id,
          breaker: t.breaker,
          requests: t.requests,
          errors: t.errors,
          errorRate: t.failed.length === 0 ? null : t.failed.filter(Boolean).length / t.failed.length,
          p50LatencyMs: t.latencies.length === 0 ? null : median(t.latencies),
          lastOutcome: t.lastOutcome,
          lastAt: t.lastAt,
        }));
    },
  };
}

export type TargetStatusView = ReturnType<typeof createTargetStatus>;
