import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { gcFlagsToSet, HEAP_GROWING_PERCENT } from '../../server/gc-tuning.js';

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

  it('leaves each flag the operator chose on the command line or in NODE_OPTIONS to them', () => {
    expect(gcFlagsToSet(['--heap-growing-percent=80'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(gcFlagsToSet(['--max-old-space-size=512 --allocation-site-pretenuring'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(gcFlagsToSet(['--heap_growing_percent=20', '--no_allocation_site_pretenuring'])).toEqual([]);
  });

  // setFlagsFromString ignores a flag V8 does not know: this fails if a Node upgrade renames it,
  // or if V8 stops reading it after start.
  it('stops V8 pretenuring when set in a running process', () => {
    expect(pretenuringDecisions([])).toMatch(/=> tenure/);
    expect(pretenuringDecisions(gcFlagsToSet([]))).not.toMatch(/=> tenure/);
  });
});
