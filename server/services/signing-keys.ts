import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import type { SigningKeyRecord, Store } from '../store/types.js';

export const SIGNING_ALGORITHM = 'ES256';

/**
 * The server's own signing keys (published at /.well-known/jwks.json). One ES256 pair is made on
 * the first start of a database and kept in it, so the published set survives restarts.
 */
export function createSigningKeysService(deps: { store: Store; clock: Clock }) {
  let keys: Promise<SigningKeyRecord[]> | undefined;

  async function load(): Promise<SigningKeyRecord[]> {
    const existing = await deps.store.signingKeys.list();
    if (existing.length > 0) return existing;
    // Instances starting together on a new database must agree on one key: one makes it.
    return deps.store.coordination.exclusively('signing-keys', create);
  }

  async function create(): Promise<SigningKeyRecord[]> {
    const existing = await deps.store.signingKeys.list();
    if (existing.length > 0) return existing;
    const pair = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const publicJwk = await exportJWK(pair.publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const record: SigningKeyRecord = {
      kid,
      algorithm: SIGNING_ALGORITHM,
      publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
      privateJwk: { ...(await exportJWK(pair.privateKey)), kid, alg: SIGNING_ALGORITHM },
      createdAt: deps.clock.now().toISOString(),
    };
    await deps.store.signingKeys.create(record);
    return [record];
  }

  const all = () => {
    keys ??= load().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };

  return {
    /** Makes sure a key pair exists (at start). */
    async ready(): Promise<void> {
      await all();
    },
    /** The public keys as a JWK set. */
    async jwks(): Promise<{ keys: (JWK & { kty: string })[] }> {
      return { keys: (await all()).map((key) => key.publicJwk as JWK & { kty: string }) };
    },
    /** The newest key pair, for signing. */
    async current(): Promise<SigningKeyRecord> {
      const list = await all();
      return list[list.length - 1] as SigningKeyRecord;
    },
  };
}
