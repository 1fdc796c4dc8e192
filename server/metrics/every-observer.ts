import type { InferenceObserver } from './inference-observer.js';

/**
 * Several observers as one, by name: each is told everything, in order, and each on its own. An
 * observer runs on the metered path and must not throw; one that does is a bug of its own, so it
 * neither keeps the others from being told nor fails the request. Its first failure is logged
 * with its name; its later ones are not (a broken observer would otherwise log at every request).
 * An async method (an embedder's collector that awaits its write) fails by rejecting: the same,
 * and never an unhandled rejection, which would end the process.
 */
export function everyObserver(observers: Record<string, InferenceObserver>, log: (line: string) => void): InferenceObserver {
  const named = Object.entries(observers);
  const logged = new Set<string>();
  const failed = (name: string, event: keyof InferenceObserver, error: unknown) => {
    if (logged.has(name)) return;
    logged.add(name);
    log(`observer ${name} threw in ${event}: ${String(error)} (its later failures are not logged)`);
  };
  const tell = (event: keyof InferenceObserver, call: (observer: InferenceObserver) => unknown) => {
    for (const [name, observer] of named) {
      try {
        const told = call(observer);
        // A method typed to return void may return a promise: its rejection is its throw.
        if (isThenable(told)) told.then(undefined, (error: unknown) => failed(name, event, error));
      } catch (error) {
        failed(name, event, error);
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

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
