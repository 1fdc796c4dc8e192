import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.js';
import { ApiError } from '../../server/errors.js';
import { backoffMs, clockSleep, DEFAULT_RETRY, waitBefore } from '../../server/services/inference/routing/backoff.js';
import { afterFailure, createBreakers, DEFAULT_BREAKER } from '../../server/services/inference/routing/breakers.js';
import { createLatencyOrder, createRotation, EXPLORATION } from '../../server/services/inference/routing/plan.js';
import { verdictOf } from '../../server/services/inference/routing/policy.js';
import { createMemoryBreakers } from '../../server/store/memory-breakers.js';
import { nobodyWatching, type InferenceObserver } from '../../server/metrics/inference-observer.js';

/** The routing policy's parts, one at a time: the weighted order, the backoff, the breaker, what moves on. */
describe('the weighted order', () => {
  it('leads with each target in proportion to its weight, spread evenly, the others following heaviest first', () => {
    const rotate = createRotation();
    const targets = [
      { id: 'a', weight: 3 },
      { id: 'b', weight: 1 },
      { id: 'c', weight: 2 },
    ];
    const orders = Array.from({ length: 12 }, () => rotate('route/r', targets).map((t) => t.id));
    const firsts = orders.map((order) => order[0]);
    expect(firsts.filter((id) => id === 'a')).toHaveLength(6);
    expect(firsts.filter((id) => id === 'b')).toHaveLength(2);
    expect(firsts.filter((id) => id === 'c')).toHaveLength(4);
    // Spread: within every six requests, exactly the weights.
    expect(new Set([firsts.slice(0, 6).sort().join(''), firsts.slice(6).sort().join('')])).toEqual(new Set(['aaabcc']));
    for (const order of orders) expect(order.slice(1)).toEqual(['a', 'c', 'b'].filter((id) => id !== order[0]));
  });
});

describe('the latency order', () => {
  const targets = ['a', 'b', 'c'].map((id) => ({ entry: { id } }));
  const ids = (order: { entry: { id: string } }[]) => order.map((t) => t.entry.id).join('');

  it('measures every target first, then leads with the quickest; a failure falls behind; streams and answers apart', () => {
    const latencies = createLatencyOrder(() => 0.99);
    expect(ids(latencies.order(targets, 'answer'))).toBe('abc');
    latencies.record('a', 'answer', 300, false);
    latencies.record('b', 'answer', 20, false);
    expect(ids(latencies.order(targets, 'answer'))).toBe('cba');
    latencies.record('c', 'answer', 50, false);
    expect(ids(latencies.order(targets, 'answer'))).toBe('bca');
    // b fails: its penalty puts it behind a even at a quick failure.
    latencies.record('b', 'answer', 5, true);
    expect(ids(latencies.order(targets, 'answer'))).toBe('cab');
    // Nothing measured for streams yet.
    expect(ids(latencies.order(targets, 'stream'))).toBe('abc');
  });

  it('explores on one request in ten: another target first, the rest in order', () => {
    const draws = [EXPLORATION / 2, 0.99];
    const latencies = createLatencyOrder(() => draws.shift() ?? 0.99);
    for (const [id, ms] of [['a', 10], ['b', 20], ['c', 30]] as const) latencies.record(id, 'answer', ms, false);
    expect(ids(latencies.order(targets, 'answer'))).toBe('cab');
    expect(ids(latencies.order(targets, 'answer'))).toBe('abc');
  });
});

describe('the backoff', () => {
  it('doubles with jitter in the upper half, within the longest single wait', () => {
    expect(backoffMs(0, DEFAULT_RETRY, () => 0)).toBe(125);
    expect(backoffMs(0, DEFAULT_RETRY, () => 1)).toBe(250);
    expect(backoffMs(2, DEFAULT_RETRY, () => 1)).toBe(1000);
    expect(backoffMs(10, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
  });

  it('waits what retry-after says; a wait too long for one step or for the total moves on instead (null)', () => {
    expect(waitBefore(0, 3_000, DEFAULT_RETRY, 0)).toBe(3_000);
    expect(waitBefore(0, 30_000, DEFAULT_RETRY, 0)).toBeNull();
    expect(waitBefore(0, 3_000, DEFAULT_RETRY, DEFAULT_RETRY.totalMs - 2_000)).toBeNull();
  });

  it('a wait by a manual clock ends when the clock is moved past it', async () => {
    const clock = manualClock();
    let done = false;
    const waiting = clockSleep(clock)(60_000, new AbortController().signal).then(() => (done = true));
    clock.advance(59_999);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await waiting;
    expect(done).toBe(true);
  });
});

describe('the breaker', () => {
  it('counts failures in a window: the threshold within it opens, failures spread wider do not', () => {
    let record = null as ReturnType<typeof afterFailure> | null;
    for (let i = 0; i < 4; i++) record = afterFailure(record, i * 1_000, DEFAULT_BREAKER);
    expect(record).toMatchObject({ state: 'closed', failures: 4 });
    expect(afterFailure(record, 4_000, DEFAULT_BREAKER)).toMatchObject({ state: 'open', sinceMs: 4_000 });
    // The fifth failure after the window: a new window, still closed.
    expect(afterFailure(record, DEFAULT_BREAKER.windowMs + 1, DEFAULT_BREAKER)).toMatchObject({ state: 'closed', failures: 1 });
  });

  it('tells the observer every transition: open, half-open (the probe), closed', async () => {
    const clock = manualClock();
    const changes: string[] = [];
    const observer: InferenceObserver = { ...nobodyWatching, breakerChanged: (target, state) => changes.push(`${target} ${state}`) };
    const breakers = createBreakers({ store: createMemoryBreakers(), clock, observer });
    for (let i = 0; i < 5; i++) await breakers.failed('p/m');
    expect(await breakers.admit('p/m')).toBeNull();
    clock.advance(DEFAULT_BREAKER.cooldownMs);
    expect(await breakers.stateOf('p/m')).toBe('half_open');
    expect(await breakers.admit('p/m')).toBe('probe');
    // The probe is out: nobody else is let through meanwhile.
    expect(await breakers.admit('p/m')).toBeNull();
    await breakers.succeeded('p/m');
    expect(await breakers.admit('p/m')).toBe('closed');
    expect(changes).toEqual(['p/m open', 'p/m half_open', 'p/m closed']);
  });
});

describe('what moves on', () => {
  it('an error of ours with no upstream fault stops; a 5xx from an adapter moves on', () => {
    expect(verdictOf(new ApiError(400, 'invalid_request_error', 'bad'))).toMatchObject({ failure: 'request', moveOn: false });
    expect(verdictOf(new ApiError(502, 'upstream_error', 'the stream ended'))).toMatchObject({ failure: 'server_error', moveOn: true, repeat: false });
    expect(verdictOf(new TypeError('a bug'))).toMatchObject({ failure: 'internal', moveOn: false });
  });
});
