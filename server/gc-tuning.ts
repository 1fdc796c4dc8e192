import { setFlagsFromString } from 'node:v8';

/**
 * V8's garbage collector, tuned for a request server: two flags, set once at start unless the
 * operator chose otherwise (`node --flag`, or in NODE_OPTIONS). V8 reads both at each collection,
 * so setting them in a running process takes effect at once.
 */

/**
 * How far V8 lets the heap grow past what the last full collection kept before it collects
 * again. By default, under a steady load, up to four times: a gateway keeping ~65 MB alive swung
 * between ~180 and ~360 MB of RSS, so RSS said more about when the last collection ran than about
 * what the server holds. At 50% it stays within ~10% of a flat line (the gateway-soak bench), and
 * the collections that takes cost no measurable CPU per request (~430 µs either way, #28).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * No allocation-site pretenuring. V8 allocates straight into the old generation from an
 * allocation site whose objects it finds alive at a young collection. A server under load always
 * has requests in flight, so the sites of request-scoped objects (a response's headers, its
 * AbortController, the meter's closures) looked long-lived and were pretenured: about 9 KB of
 * every request's garbage went to the old generation, each scavenge took twice as long (the
 * pretenured objects point at young ones), and full collections came every ~2 s. Without it, a
 * metered request costs ~10% less CPU and RSS is unchanged (gateway-load, #28).
 */
const NO_PRETENURING = '--no-allocation-site-pretenuring';

/** The flags to set, given what the operator passed to node: each one they set themselves is left to them. */
export function gcFlagsToSet(operatorFlags: string[]): string[] {
  const chose = (name: RegExp) => operatorFlags.some((flag) => name.test(flag));
  return [
    ...(chose(/heap[-_]growing[-_]percent/) ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]),
    ...(chose(/allocation[-_]site[-_]pretenuring/) ? [] : [NO_PRETENURING]),
  ];
}

/** Tunes this process's collector for serving, once, leaving alone what the operator chose. */
export function tuneGarbageCollection(): void {
  for (const flag of gcFlagsToSet([...process.execArgv, process.env.NODE_OPTIONS ?? ''])) setFlagsFromString(flag);
}
