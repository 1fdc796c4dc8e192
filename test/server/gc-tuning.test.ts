import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { collectOnceAfterStart, gcFlagsToSet, HEAP_GROWING_PERCENT } from '../../server/gc-tuning.js';

/**
 * A node process that sets `flags` as the server does (at run time), then keeps two million young
 * objects from one allocation site alive, with V8 tracing its pretenuring decisions.
 */
function pretenuringDecisions(flags: string[]): string {
  const script = `
    const v8 = require('node:v8');
    for (const flag of JSON.parse(process.argv[1])) v8.setFlagsFromString(flag);
    const kept = [];
    const make = (i) => ({ i });
    for (let i = 0; i < 2e6; i++) kept.push(make(i));`;
  const run = spawnSync(process.execPath, ['--trace-pretenuring-statistics', '-e', script, JSON.stringify(flags)], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('the server tunes its garbage collector', () => {
  it('sets both flags when the operator set neither', () => {
    expect(gcFlagsToSet([])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--no-allocation-site-pretenuring']);
  });

  it("leaves each flag the operator gave node to them (node's own spelling or V8's)", () => {
    expect(gcFlagsToSet(['--heap-growing-percent=80'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(gcFlagsToSet(['--max-old-space-size=512', '--allocation-site-pretenuring'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(gcFlagsToSet(['--heap_growing_percent=20', '--no_allocation_site_pretenuring'])).toEqual([]);
  });

  // setFlagsFromString ignores a flag V8 does not know: this fails if a Node upgrade renames it,
  // or if V8 stops reading it after start. V8 moves a site that keeps what it allocates from
  // undecided to "maybe tenure", then to "tenure" at a later young collection; how many of those a
  // run gets depends on how V8 sizes the young generation, which follows the machine's load (a
  // busy machine once ended the run at "maybe tenure"). Either is V8 pretenuring the site.
  it('stops V8 pretenuring when set in a running process', () => {
    const pretenures = /=> (maybe )?tenure/;
    expect(pretenuringDecisions([])).toMatch(pretenures);
    expect(pretenuringDecisions(gcFlagsToSet([]))).not.toMatch(pretenures);
  });

  // V8 sizes the old generation's first limit by the machine: without a full collection at start,
  // a server without pretenuring reached ~400 MB of old generation before its first.
  it('makes one full collection at the first start in a process, and none at the next', async () => {
    const kindOf = (entry: PerformanceEntry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    /**
     * The full collections `run` makes: the collector's entries, in the order it collected, up to
     * a young collection forced after it by garbage made here (no time is waited for).
     */
    const majors = async (run: () => void) => {
      const seen: PerformanceEntry[] = [];
      let marked: () => void = () => {};
      const marker = new Promise<void>((resolve) => (marked = resolve));
      const observer = new PerformanceObserver((list) => {
        seen.push(...list.getEntries());
        if (seen.some((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MINOR)) marked();
      });
      observer.observe({ entryTypes: ['gc'] });
      run();
      let done = false;
      void marker.then(() => (done = true));
      while (!done) {
        for (let i = 0; i < 10_000; i++) void new Array(64).fill(i);
        await new Promise(setImmediate);
      }
      observer.disconnect();
      const minor = seen.findIndex((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MINOR);
      return seen.slice(0, minor).filter((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MAJOR).length;
    };
    expect(await majors(collectOnceAfterStart)).toBeGreaterThanOrEqual(1);
    expect(await majors(collectOnceAfterStart)).toBe(0);
    expect(globalThis.gc).toBeUndefined();
  });
});

