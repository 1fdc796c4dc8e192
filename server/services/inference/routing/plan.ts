import type { RouteStrategy } from '../../../providers/routes-config.js';

/**
 * The targets of a route in the order to try them: `fallback` as listed; `weighted` drawn by
 * weight without replacement, so the first is picked by weight and the others follow as fallbacks
 * (a heavier one more likely sooner).
 */
export function orderTargets<T extends { weight: number }>(
  strategy: RouteStrategy, targets: readonly T[], random: () => number = Math.random): T[] {
  if (strategy === 'fallback' || targets.length < 2) return [...targets];
  const left = [...targets];
  const order: T[] = [];
  while (left.length > 0) {
    const total = left.reduce((sum, target) => sum + target.weight, 0);
    let point = random() * total;
    let index = left.findIndex((target) => (point -= target.weight) < 0);
    if (index < 0) index = left.length - 1;
    order.push(...left.splice(index, 1));
  }
  return order;
}
