import type { Db } from './database.js';
import type { Store } from '../types.js';
import { toSigningKey, type SigningKeyRow } from '../rows.js';

export function createSigningKeysRepository(db: Db): Store['signingKeys'] {
  const selectAll = db.prepare<[], SigningKeyRow>(
    'SELECT kid, algorithm, public_jwk, private_jwk, created_at FROM signing_keys ORDER BY created_at, kid',
  );
  const insert = db.prepare(
    'INSERT INTO signing_keys (kid, algorithm, public_jwk, private_jwk, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  return {
    async list() {
      return selectAll.all().map(toSigningKey);
    },
    async create(key) {
      insert.run(key.kid, key.algorithm, JSON.stringify(key.publicJwk), JSON.stringify(key.privateJwk), key.createdAt);
    },
  };
}
