import type { Clock } from '../../clock.js';
import type { Store } from '../../store/types.js';
import type { PlanCatalog } from '../../payments/plans.js';
import { runningAt, subscriberKey, subscriberScope, type Subscriber } from './state.js';

const TTL_MS = 60_000;
const MAX_ENTRIES = 100_000;

/**
 * How much a subscriber's plan raises its rate limits (1 without a plan). Asked on every request,
 * so cached per subscriber for a minute (never past the period's end); `forget` drops an entry
 * when the processor reports a new state.
 */
export function createRateMultipliers(deps: { store: Store; clock: Clock; plans: PlanCatalog }) {
  const cache = new Map<string, { times: number; until: number }>();
  return {
    async of(subscriber: Subscriber): Promise<number> {
      const now = deps.clock.now();
      const cached = cache.get(subscriberKey(subscriber));
      if (cached && now.getTime() < cached.until) return cached.times;
      const sub = await deps.store.subscriptions.current(subscriberScope(subscriber), subscriber.address);
      const running = sub !== null && runningAt(sub, now);
      const times = running ? deps.plans.find(sub.tier, sub.interval).rateLimitMultiplier : 1;
      const until = Math.min(now.getTime() + TTL_MS, running ? Date.parse(sub.currentPeriodEnd) : Infinity);
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(subscriberKey(subscriber), { times, until });
      return times;
    },
    forget(subscriber: Subscriber): void {
      cache.delete(subscriberKey(subscriber));
    },
  };
}

export type RateMultipliers = ReturnType<typeof createRateMultipliers>;
