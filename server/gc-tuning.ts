import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's garbage collector, tuned for a request server: two flags, set once at start unless the
 * operator chose otherwise (`node --flag …`; NODE_OPTIONS does not take these two), and one full
 * collection once the server has started. V8 reads both flags at each collection, so setting them
 * in a running process takes effect at once.
 */

/**
 * How far V8 lets the heap grow past what the last full collection kept before it collects
 * again. By default, under a steady load, up to four times: a gateway keeping ~65 MB alive swung
 * between ~180 and ~360 MB of RSS, so RSS said more about when the last collection ran than about
 * what the server holds. At 30% (with no pretenuring and the collection at start) RSS after 50,000
 * requests stays within 15% of RSS after 5,000 (the gateway-soak bench: 4.5–14.0% in six runs;
 * 50% went past it, to 15.1%), below what it was before either change, for ~5% more CPU a
 * request than 50% (#28).
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * No allocation-site pretenuring. V8 allocates straight into the old generation from an
 * allocation site whose objects it finds alive at a young collection. A server under load always
 * has requests in flight, so the sites of request-scoped objects (a response's headers, its
 * AbortController, the meter's closures) looked long-lived and were pretenured: about 9 KB of
 * every request's garbage went to the old generation, each scavenge took twice as long (the
 * pretenured objects point at young ones), and full collections came every ~2 s. Without it (and
 * with the collection at start), a metered request costs 10–13% less CPU, non-streamed, and RSS
 * is ~10 MB lower (gateway-load, #28).
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

/** Tunes this process's collector for serving, leaving alone what the operator chose (at each start: setting a flag again changes nothing). */
export function tuneGarbageCollection(): void {
  for (const flag of gcFlagsToSet(process.execArgv)) setFlagsFromString(flag);
}

let collectedOnce = false;

/**
 * One full collection, once per process, when the server has started: V8 sizes the old
 * generation's first limit by the machine, not by what the process keeps, so until its first full
 * collection the heap grows to hundreds of MB (without pretenuring, which had collected early, a
 * server under load reached ~400 MB of old generation first: RSS +75% at 50,000 requests).
 * Collected once the startup's garbage (catalogs, schemas) is dead, the limit follows what the
 * server keeps from then on. `gc` is exposed for the one call, in a context of its own, and
 * hidden again.
 */
export function collectOnceAfterStart(): void {
  if (collectedOnce) return;
  collectedOnce = true;
  if (typeof globalThis.gc === 'function') return globalThis.gc();
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
