import { existsSync } from 'node:fs';

/**
 * Loads a module that is bundled on its own (the server, the contract), so the CLI's bundle never
 * shares a chunk with it: `svc api …` then parses none of it. From source (tests) it loads the
 * TypeScript module directly. The specifiers are variables so the bundler leaves them alone.
 */
async function loadSeparately<T>(bundled: string, source: string): Promise<T> {
  const bundledUrl = new URL(bundled, import.meta.url);
  const specifier = existsSync(bundledUrl) ? bundledUrl.href : new URL(source, import.meta.url).href;
  return (await import(specifier)) as T;
}

export const loadServer = () =>
  loadSeparately<typeof import('../../server/app.js')>('../server/app.js', '../../server/app.js');

export const loadContractManifest = () =>
  loadSeparately<typeof import('../contract/manifest.js')>('../build/manifest.js', '../contract/manifest.js');
