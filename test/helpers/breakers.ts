import type { TestServer } from './server.js';

/**
 * Puts a target's breaker in `state` in the server's breaker store, as the routes' breakers (on
 * this instance or, on PostgreSQL, on another) write it.
 */
export async function setBreaker(t: TestServer, target: string, state: 'closed' | 'open' | 'half_open'): Promise<void> {
  const now = t.clock.now().getTime();
  await t.server.store.breakers.update(target, () => ({ state, failures: 0, windowStartMs: now, sinceMs: now }));
}
