import { ApiError } from '../../../errors.js';
import { faultOf, type FailureClass } from '../../../providers/upstream.js';

/** What to do after a failed attempt. */
export interface Verdict {
  /** The error class, as `x-svc-attempts`, the usage row and the metrics name it. */
  failure: FailureClass | 'internal';
  /** Another target may serve the request. */
  moveOn: boolean;
  /** The same target may be sent the request again (it cannot have done the work). */
  repeat: boolean;
  /** The failure is the target's own, and counts towards opening its breaker. */
  countsAgainstTarget: boolean;
  retryAfterMs: number | null;
}

/** Failures that are the upstream's (down, slow, overloaded, rate-limiting, refusing our credentials or quota). */
const TARGET_FAULTS = new Set<FailureClass>(['connection', 'timeout', 'rate_limited', 'server_error', 'overloaded', 'auth', 'bad_response']);

/**
 * When to move on: connection errors, timeouts, 408, 429, 5xx and 529, and the provider refusing
 * our credentials or quota (401/402/403) move to the next target; the caller's own errors (400,
 * 404, 413, 422) never do, except a context-length error, which moves on to a target with a larger
 * window. An error the upstream sent in place of an answer (a stream's error event before any
 * output) is the upstream's failure; anything else (a bug of ours) stops.
 */
export function verdictOf(error: unknown): Verdict {
  const fault = faultOf(error);
  if (fault) {
    const own = TARGET_FAULTS.has(fault.failure);
    return {
      failure: fault.failure,
      moveOn: own || fault.failure === 'context_length',
      repeat: own && fault.repeatable,
      countsAgainstTarget: own,
      retryAfterMs: fault.retryAfterMs,
    };
  }
  if (error instanceof ApiError && error.status >= 500) {
    return { failure: 'server_error', moveOn: true, repeat: false, countsAgainstTarget: true, retryAfterMs: null };
  }
  return { failure: error instanceof ApiError ? 'request' : 'internal', moveOn: false, repeat: false, countsAgainstTarget: false, retryAfterMs: null };
}
