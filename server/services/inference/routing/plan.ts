/**
 * The order in which a weighted route tries its targets: smooth weighted round-robin (nginx's),
 * so that over any run of requests each target comes first in proportion to its weight, spread
 * evenly rather than in bursts, and the others follow as fallbacks, heaviest first. Per process:
 * several instances each keep the proportions, so together they do too.
 */
export function createRotation() {
  const credits = new Map<string, number[]>();
  return function rotate<T extends { weight: number }>(key: string, targets: readonly T[]): T[] {
    if (targets.length < 2) return [...targets];
    const credit = credits.get(key) ?? targets.map(() => 0);
    const total = targets.reduce((sum, target) => sum + target.weight, 0);
    let first = 0;
    targets.forEach((target, index) => {
      credit[index] = (credit[index] ?? 0) + target.weight;
      if ((credit[index] ?? 0) > (credit[first] ?? 0)) first = index;
    });
    credit[first] = (credit[first] ?? 0) - total;
    credits.set(key, credit);
    const rest = targets.filter((_, index) => index !== first).sort((a, b) => b.weight - a.weight);
    return [targets[first] as T, ...rest];
  };
}

/** How much a new latency sample moves a target's average (an exponentially weighted mean). */
const LATENCY_WEIGHT = 0.3;
/** The share of requests a latency route sends to another target first, to keep its measures fresh. */
export const EXPLORATION = 0.1;
/** Added to a sample of a target that failed: it falls behind the ones that answer. */
const FAILURE_PENALTY_MS = 1_000;

/**
 * The order in which a latency route tries its targets: quickest first by each target's recent
 * latency on this instance (an exponentially weighted mean of its attempts, a failed one
 * counted with a penalty), targets never measured first (so each is measured), and, on one
 * request in ten, another target first (exploration: a target that was slow once is tried again
 * and can win back its place). Latencies are kept apart by `kind` (a stream's first event and a
 * whole answer are not comparable) and measured by the server's clock (the system's in production,
 * a test's when injected), like every other time of the routing.
 */
export function createLatencyOrder(random: () => number) {
  const means = new Map<string, number>();
  const key = (target: string, kind: string) => `${kind} ${target}`;
  return {
    record(target: string, kind: string, latencyMs: number, failed: boolean): void {
      const sample = latencyMs + (failed ? FAILURE_PENALTY_MS : 0);
      const mean = means.get(key(target, kind));
      means.set(key(target, kind), mean === undefined ? sample : mean + LATENCY_WEIGHT * (sample - mean));
    },
    order<T extends { entry: { id: string } }>(targets: readonly T[], kind: string): T[] {
      const mean = (target: T) => means.get(key(target.entry.id, kind));
      const unmeasured = targets.filter((target) => mean(target) === undefined);
      const measured = targets.filter((target) => mean(target) !== undefined).sort((a, b) => (mean(a) as number) - (mean(b) as number));
      const order = [...unmeasured, ...measured];
      if (unmeasured.length === 0 && order.length > 1 && random() < EXPLORATION) {
        const other = 1 + Math.floor(random() * (order.length - 1));
        order.unshift(...order.splice(other, 1));
      }
      return order;
    },
  };
}
