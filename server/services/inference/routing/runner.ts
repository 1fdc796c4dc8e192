import type { Clock } from '../../../clock.js';
import { ApiError } from '../../../errors.js';
import type { Requested, ResolvedModel } from '../../../providers/registry.js';
import type { BreakerStore, UsageAttempt } from '../../../store/types.js';
import { nobodyWatching, type InferenceObserver } from '../../../metrics/inference-observer.js';
import { clockSleep, DEFAULT_RETRY, waitBefore, type RetryPolicy, type Sleep } from './backoff.js';
import { createBreakers, type BreakerPolicy } from './breakers.js';
import { createLatencyOrder, createRotation } from './plan.js';
import { verdictOf } from './policy.js';
import type { CancelSignal } from '../../../cancellation.js';

/** One try of one target that did not answer: which, why (its error class), and how long it took, as the usage row keeps it. */
export type FailedAttempt = UsageAttempt;

/** The targets of one request in the order to try them, and what names them in headers and metrics. */
export interface TargetPlan {
  /** A route's id, or the requested model's when it has `models` fallbacks; null for one model alone. */
  route: string | null;
  targets: ResolvedModel[];
  /** What an attempt waits for: a stream's first event or a whole answer (latencies of one kind compare). */
  kind: AttemptKind;
}

export type AttemptKind = 'stream' | 'answer';

export interface RoutingOptions {
  clock: Clock;
  store: { breakers: BreakerStore };
  observer?: InferenceObserver;
  retry?: RetryPolicy;
  breaker?: BreakerPolicy;
  /** Waits between retries (default: by the clock, see clockSleep). */
  sleep?: Sleep;
  /** The jitter of the backoff (tests fix it). */
  random?: () => number;
}

/** `x-svc-attempts`: each try that failed, `target=class;ms`, then the one that answered. */
function attemptsHeader(failed: FailedAttempt[], served: string | null): string {
  const tries = failed.map((a) => `${a.model}=${a.errorClass};${a.latencyMs}ms`);
  return [...tries, ...(served ? [`${served}=ok`] : [])].join(', ');
}

/** The headers that say which targets were tried and which answered. */
export function servedHeaders(plan: TargetPlan, failed: FailedAttempt[], served: string | null): Record<string, string> {
  return { ...(plan.route ? { 'x-svc-route': plan.route } : {}), 'x-svc-attempts': attemptsHeader(failed, served) };
}

/** The tries of a request that no target answered, and the last target tried (for its usage row). */
export interface Unserved {
  failed: FailedAttempt[];
  last: ResolvedModel | null;
}

const unserved = new WeakMap<object, Unserved>();

/** What the routing tried before it gave up with `error` (null for any other error). */
export const unservedBy = (error: unknown): Unserved | null => (typeof error === 'object' && error !== null ? (unserved.get(error) ?? null) : null);

/** The answer of a target, which one it was, and the tries that failed before it. */
export interface Served<T> {
  value: T;
  target: ResolvedModel;
  failed: FailedAttempt[];
}

/**
 * Sends a request to the targets of its plan until one answers: each target's breaker is asked
 * first (an open one is skipped unsent); a failure the policy allows is retried on the same target
 * with backoff (its `retry-after` honoured) within the total bound, then the next target is tried;
 * a context-length failure skips targets whose window is no larger; a caller's error ends it at
 * once. `attempt` must resolve only once the target has answered (for a stream, its first event):
 * this is all before the first byte reaches the client.
 */
export function createRouting(options: RoutingOptions) {
  const observer = options.observer ?? nobodyWatching;
  const retry = options.retry ?? DEFAULT_RETRY;
  const sleep = options.sleep ?? clockSleep(options.clock);
  const random = options.random ?? Math.random;
  const breakers = createBreakers({ store: options.store.breakers, clock: options.clock, observer, ...(options.breaker ? { policy: options.breaker } : {}) });
  const now = () => options.clock.now().getTime();
  const rotate = createRotation();
  // Measured by the injected clock like every other time here (the system's in production).
  const latencies = createLatencyOrder(random);

  return {
    breakers,

    /** The plan of a request: `model`, then its `models` fallbacks, each route's targets in its order; a target named twice is tried once. */
    plan(requested: Requested[], kind: AttemptKind): TargetPlan {
      const [first] = requested;
      // One model named alone (most requests): its one target as it is, without the copies and
      // the set that merging several lists needs (#28).
      if (requested.length === 1 && first?.strategy === 'fallback' && first.targets.length === 1) {
        return { route: first.id !== first.targets[0]?.entry.id ? first.id : null, targets: first.targets, kind };
      }
      const seen = new Set<string>();
      const ordered = (item: Requested) => {
        if (item.strategy === 'weighted') return rotate(item.id, item.targets);
        return item.strategy === 'latency' ? latencies.order(item.targets, kind) : item.targets;
      };
      const targets = requested
        .flatMap(ordered)
        .filter((target) => !seen.has(target.entry.id) && seen.add(target.entry.id));
      const routed = requested.length > 1 || (first !== undefined && first.id !== first.targets[0]?.entry.id);
      return { route: routed && first ? first.id : null, targets, kind };
    },

    async run<T>(plan: TargetPlan, signal: CancelSignal, attempt: (target: ResolvedModel) => Promise<T>): Promise<Served<T>> {
      const failed: FailedAttempt[] = [];
      let waited = 0;
      let lastError: unknown = null;
      let last: ResolvedModel | null = null;
      /** The error the request ends with, with the routing headers and what was tried. */
      const giveUp = (error: unknown) => {
        if (typeof error === 'object' && error !== null) unserved.set(error, { failed, last });
        return withHeaders(error, servedHeaders(plan, failed, null));
      };
      /** After a context-length failure: only a target with a larger window may take the request. */
      let windowAbove: number | null = null;
      for (const target of plan.targets) {
        const id = target.entry.id;
        if (windowAbove !== null && target.entry.contextLength !== null && target.entry.contextLength <= windowAbove) continue;
        let admission = await breakers.admit(id);
        if (!admission) {
          failed.push({ model: id, errorClass: 'circuit_open', latencyMs: 0 });
          continue;
        }
        for (let repeat = 0; ; repeat++) {
          const attemptStart = now();
          // Moved on to this target after another failed or was skipped.
          const fallback = repeat === 0 && failed.length > 0;
          try {
            const value = await attempt(target);
            const latencyMs = now() - attemptStart;
            latencies.record(id, plan.kind, latencyMs, false);
            observer.attemptEnded({ route: plan.route, provider: target.entry.provider, model: target.entry.model, outcome: 'ok', latencyMs, retry: repeat > 0, fallback });
            // A closed breaker stays as it is: nothing to write (nor, on PostgreSQL, to read again).
            if (admission === 'probe') await breakers.succeeded(id);
            return { value, target, failed };
          } catch (error) {
            if (signal.aborted) throw error;
            const verdict = verdictOf(error);
            const latencyMs = now() - attemptStart;
            last = target;
            observer.attemptEnded({ route: plan.route, provider: target.entry.provider, model: target.entry.model, outcome: verdict.failure, latencyMs, retry: repeat > 0, fallback });
            failed.push({ model: id, errorClass: verdict.failure, latencyMs });
            lastError = error;
            if (verdict.countsAgainstTarget) {
              latencies.record(id, plan.kind, latencyMs, true);
              await breakers.failed(id);
            }
            // A probe refused for the request's own sake (a caller's error, a window too small) found the target alive.
            else if (admission === 'probe') await breakers.succeeded(id);
            if (!verdict.moveOn) throw giveUp(error);
            if (verdict.failure === 'context_length') {
              if (target.entry.contextLength !== null) windowAbove = Math.max(windowAbove ?? 0, target.entry.contextLength);
              break;
            }
            if (!verdict.repeat || repeat >= (target.retries ?? retry.retries)) break;
            const delay = waitBefore(repeat, verdict.retryAfterMs, retry, waited, random);
            if (delay === null) break;
            admission = await breakers.admit(id);
            if (!admission) break;
            await sleep(delay, signal);
            waited += delay;
          }
        }
      }
      throw giveUp(lastError ?? allSkipped(plan, failed, breakers.policy.cooldownMs));
    },
  };
}

export type Routing = ReturnType<typeof createRouting>;

const byStore = new WeakMap<BreakerStore, Routing>();

/**
 * The routing of a server, one for all its front doors (found by its store): one weighted
 * rotation per route, and one view of the breakers told to the observer.
 */
export function routingOf(options: RoutingOptions): Routing {
  const existing = byStore.get(options.store.breakers);
  if (existing) return existing;
  const routing = createRouting(options);
  byStore.set(options.store.breakers, routing);
  return routing;
}

/** Every target was skipped (breakers open): a 503 that says which, and to come back after a cooldown. */
function allSkipped(plan: TargetPlan, failed: FailedAttempt[], cooldownMs: number): ApiError {
  const names = failed.map((a) => a.model).join(', ') || plan.targets.map((t) => t.entry.id).join(', ');
  return new ApiError(503, 'upstream_error', `No target can take the request now: ${names} ${failed.length === 1 ? 'is' : 'are'} failing (circuit open); retry shortly.`, 'circuit_open', null, {
    'retry-after': String(Math.ceil(cooldownMs / 1000)),
  });
}

/** The error with the routing headers added (an ApiError carries them to the answer). */
function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (error instanceof ApiError) Object.assign(error.headers, headers);
  return error;
}
