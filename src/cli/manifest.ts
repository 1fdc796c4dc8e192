import { readFileSync } from 'node:fs';
import type { OperationManifest } from '../contract/manifest.js';
import type { Operation, OperationId } from '../contract/operations/index.js';
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

/**
 * One operation by id, typed as the contract's (the client needs only its method and path, which
 * the manifest carries), without loading the contract into the CLI.
 */
export async function manifestOperation<I extends OperationId>(id: I): Promise<Extract<Operation, { id: I }>> {
  const found = (await loadManifest()).find((op) => op.id === id);
  if (!found) throw new Error(`No operation ${id} in the manifest.`);
  return found as unknown as Extract<Operation, { id: I }>;
}
