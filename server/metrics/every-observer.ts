import type { InferenceObserver } from './inference-observer.js';

/**
 * Several observers as one, by name: each is told everything, in order, and each on its own. An
 * observer runs on the metered path and must not throw; one that does is a bug of its own, so it
 * neither keeps the others from being told nor fails the request. Its first failure is logged
 * with its name; its later ones are not (a broken observer would otherwise log at every request).
 */
export function everyObserver(observers: Record<string, InferenceObserver>, log: (line: string) => void): InferenceObserver {
  const named = Object.entries(observers);
  const logged = new Set<string>();
  const tell = (event: keyof InferenceObserver, call: (observer: InferenceObserver) => void) => {
    for (const [name, observer] of named) {
      try {
        call(observer);
      } catch (error) {
        if (logged.has(name)) continue;
        logged.add(name);
        log(`observer ${name} threw in ${event}: ${String(error)} (its later failures are not logged)`);
      }
    }
  };
  return {
    usageRecorded: (row, charged) => tell('usageRecorded', (each) => each.usageRecorded(row, charged)),
    attemptEnded: (attempt) => tell('attemptEnded', (each) => each.attemptEnded(attempt)),
    breakerChanged: (target, state) => tell('breakerChanged', (each) => each.breakerChanged(target, state)),
    holdsInFlight: (delta) => tell('holdsInFlight', (each) => each.holdsInFlight(delta)),
  };
}
