import type { Clock } from '../clock.js';
import type { BreakerStore } from '../store/types.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * Each served target's circuit breaker (the Providers screen), read from the breaker store: the
 * same on every instance. Deliberately nothing counted from requests — those figures mix every
 * developer's traffic, and a developer sees only their own (the operator has `GET /metrics`).
 */
export function createProviderStatusService(deps: { clock: Clock; registry: { models(): readonly { id: string }[] }; store: { breakers: BreakerStore } }) {
  return {
    async status() {
      const targets = deps.registry.models().map((model) => model.id);
      const records = await Promise.all(targets.map((target) => deps.store.breakers.read(target)));
      return {
        targets: targets.map((target, index) => ({ target, breaker: (records[index]?.state ?? 'closed') as BreakerState })),
        at: deps.clock.now().toISOString(),
      };
    },
  };
}
