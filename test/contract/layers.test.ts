import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The import rules of ARCHITECTURE.md, checked: a module imports only from its own layer or from
 * layers below it, never up. Each file's layer is the first rule whose prefix its path starts with;
 * a higher rank is a higher layer. Type-only imports count too: knowing a layer above is the
 * dependency, whatever the compiler erases.
 */
const ROOT = resolve(import.meta.dirname, '../..');

const LAYERS: { prefix: string; layer: string; rank: number }[] = [
  // The shared contract and the wire formats: below everything, server and client alike.
  { prefix: 'src/contract/', layer: 'contract', rank: 0 },
  { prefix: 'src/version.ts', layer: 'contract', rank: 0 },
  // The server, bottom up.
  { prefix: 'server/store/', layer: 'store', rank: 1 },
  { prefix: 'server/clock.ts', layer: 'base', rank: 2 },
  { prefix: 'server/errors.ts', layer: 'base', rank: 2 },
  { prefix: 'server/error-shapes.ts', layer: 'base', rank: 2 },
  { prefix: 'server/validation.ts', layer: 'base', rank: 2 },
  { prefix: 'server/streams.ts', layer: 'base', rank: 2 },
  { prefix: 'server/ids.ts', layer: 'base', rank: 2 },
  { prefix: 'server/cancellation.ts', layer: 'base', rank: 2 },
  { prefix: 'server/auth/', layer: 'auth', rank: 3 },
  { prefix: 'server/payments/', layer: 'payments', rank: 3 },
  { prefix: 'server/providers/', layer: 'providers', rank: 3 },
  { prefix: 'server/metrics/', layer: 'metrics', rank: 4 },
  { prefix: 'server/services/', layer: 'services', rank: 5 },
  { prefix: 'server/handlers/', layer: 'handlers', rank: 6 },
  { prefix: 'server/http/', layer: 'http', rank: 7 },
  // What wires the server together from its configuration.
  { prefix: 'server/', layer: 'composition', rank: 8 },
  // The client, bottom up.
  { prefix: 'src/client/', layer: 'client', rank: 1 },
  { prefix: 'src/memory/', layer: 'memory', rank: 2 },
  { prefix: 'src/chat/', layer: 'chat', rank: 3 },
  { prefix: 'src/tui/', layer: 'tui', rank: 4 },
  { prefix: 'src/starters/', layer: 'starters', rank: 4 },
  // The CLI is the top of both: `svc serve` starts the server.
  { prefix: 'src/cli/', layer: 'cli', rank: 9 },
];

/** A file's layer. Layers of the same rank are peers that do not know each other (auth, payments, providers). */
const layerOf = (path: string) => LAYERS.find((rule) => path.startsWith(rule.prefix));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('src/starters/templates/'));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function importsOf(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = relative(ROOT, resolve(ROOT, dirname(path), (match[1] ?? match[2])!)).replace(/\.js$/, '.ts');
    found.push(target);
  }
  return found;
}

/** Every import that runs up a layer, across to a peer layer, or from the server into the client. */
function violations(): string[] {
  const found: string[] = [];
  for (const path of [...sources('server'), ...sources('src')]) {
    const from = layerOf(path);
    if (!from) continue;
    for (const target of importsOf(path)) {
      if (target.endsWith('.json')) continue; // data (package.json's version), not a module of a layer
      const to = layerOf(target);
      if (!to) {
        found.push(`${path} -> ${target} (outside every layer: a test helper?)`);
        continue;
      }
      if (to.layer === from.layer) continue;
      const sameSide = from.prefix.split('/')[0] === to.prefix.split('/')[0] || to.layer === 'contract';
      if (!sameSide && from.layer !== 'cli') found.push(`${path} -> ${target} (${from.layer} must not know the ${to.layer === 'client' ? 'client' : to.layer})`);
      else if (to.rank >= from.rank && to.layer !== 'contract') found.push(`${path} -> ${target} (${from.layer} is not above ${to.layer})`);
    }
  }
  return found.sort();
}

describe('the layers (ARCHITECTURE.md)', () => {
  it('no module imports up a layer, across to a peer, or from the server into the client', () => {
    expect(violations()).toEqual([]);
  });

  it('the check sees an import that runs up (it can fail)', () => {
    expect(layerOf('server/store/money.ts')!.rank).toBeLessThan(layerOf('server/services/usage.ts')!.rank);
    expect(importsOf('server/services/usage.ts').some((target) => target.startsWith('server/store/'))).toBe(true);
  });
});
