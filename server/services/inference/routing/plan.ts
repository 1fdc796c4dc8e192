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
