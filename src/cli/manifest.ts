import { readFileSync } from 'node:fs';
import type { OperationManifest } from '../contract/manifest.js';
import { loadContractManifest } from './lazy.js';

/**
 * The operations as plain JSON: read from the file the build writes beside the bundle, or —
 * when running from source (tests) — derived from the contract on the spot.
 */
export async function loadManifest(): Promise<OperationManifest[]> {
  try {
    return JSON.parse(readFileSync(new URL('./api-manifest.json', import.meta.url), 'utf8')) as OperationManifest[];
  } catch {
    const { buildManifest } = await loadContractManifest();
    return buildManifest();
  }
}
