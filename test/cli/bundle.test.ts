import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIST_CLI, DIST_MAIN } from '../helpers/cli.js';

/** Relative specifiers written as string literals: `import … from "./x.js"`, `import "./x.js"`, `export … from "./x.js"`, `import("./x.js")`. */
// Only `.js` specifiers: esbuild names every chunk so, while libraries' doc comments hold
// examples such as `import('./MyComponent')` that are not imports at all.
const STATIC_IMPORT = /\b(?:import|export)\s*(?:[\w*{}\s,$]+\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["'](\.{1,2}\/[^"']+\.js)["']\s*\)/g;

/**
 * Every bundle file reachable from `entries` through relative imports with literal specifiers;
 * with `dynamic: false`, through static imports only (what loading those files loads).
 */
function reachableFiles(entries: string[], options: { dynamic: boolean } = { dynamic: true }): Map<string, string> {
  const seen = new Map<string, string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    expect(existsSync(file), `${file} is imported but missing`).toBe(true);
    const source = readFileSync(file, 'utf8');
    seen.set(file, source);
    for (const pattern of options.dynamic ? [STATIC_IMPORT, DYNAMIC_IMPORT] : [STATIC_IMPORT]) {
      for (const match of source.matchAll(pattern)) queue.push(resolve(dirname(file), match[1] as string));
    }
  }
  return seen;
}

describe('the CLI bundle', () => {
  const files = reachableFiles([DIST_MAIN]);
  const names = [...files.keys()].map((file) => basename(file));
  /** What `svc api`, `svc auth` and `svc serve` load: main, the run chunk, the command modules. */
  const hotPaths = () => {
    const chunks = names.filter((name) => /^(run|auth-login|auth-status|auth-logout|serve|chat)-[\w-]+\.js$/.test(name));
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    return reachableFiles([DIST_MAIN, ...chunks.map((name) => join(DIST_CLI, name))], { dynamic: false });
  };

  it('reaches the command chunks from main.js (the walk itself works)', () => {
    expect(names).toContain('main.js');
    const run = names.find((name) => /^run-[\w-]+\.js$/.test(name));
    expect(run, `no run chunk among ${names.join(', ')}`).toBeDefined();
    const everything = [...files.values()].join('\n');
    // Commands of every hot path are in the reached code, and so are esbuild's path comments.
    for (const marker of ['svc server listening on', 'svc auth login', 'Not logged in', 'api-manifest.json']) expect(everything).toContain(marker);
    expect(everything).toMatch(/^\/\/ node_modules\/clipanion\//m);
    expect(everything).toMatch(/^\/\/ src\/cli\//m);
  });

  it('never loads Ink or React on the api, auth and serve paths (only the chat screen does, on demand)', () => {
    const offenders = [...hotPaths()].filter(([, source]) => /node_modules\/(ink|react)\//.test(source)).map(([file]) => basename(file));
    expect(offenders).toEqual([]);
    // …and the walk can see Ink at all: the chat screen's chunks do contain it.
    expect([...files.values()].some((source) => /node_modules\/ink\//.test(source))).toBe(true);
  });

  it('never loads zod on the api, auth and serve paths, not even zod/mini (its chunk holds every locale, ~600 KB)', () => {
    const offenders = [...hotPaths()].filter(([, source]) => /^\/\/ node_modules\/zod\//m.test(source)).map(([file]) => basename(file));
    expect(offenders).toEqual([]);
    // …and the walk can see zod at all: the chat screen's chunks do contain it.
    expect([...files.values()].some((source) => /^\/\/ node_modules\/zod\//m.test(source))).toBe(true);
  });

  it('keeps the contract (zod operations) out of the CLI chunks', () => {
    const run = [...files].find(([file]) => /^run-[\w-]+\.js$/.test(basename(file)));
    expect(run).toBeDefined();
    expect(run![1]).not.toContain('src/contract/operations');
    const offenders = [...files].filter(([, source]) => source.includes('src/contract/operations')).map(([file]) => basename(file));
    expect(offenders).toEqual([]);
  });

  it('ships the operation manifest beside the bundle', () => {
    expect(existsSync(join(DIST_CLI, 'api-manifest.json'))).toBe(true);
  });
});
