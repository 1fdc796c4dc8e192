import type { Db } from './database.js';
import type { Store } from '../types.js';

interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_jwk: string;
  private_jwk: string;
  created_at: string;
}

export function createSigningKeysRepository(db: Db): Store['signingKeys'] {
  const selectAll = db.prepare<[], SigningKeyRow>(
    'SELECT kid, algorithm, public_jwk, private_jwk, created_at FROM signing_keys ORDER BY created_at, kid',
  );
  const insert = db.prepare(
    'INSERT INTO signing_keys (kid, algorithm, public_jwk, private_jwk, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  return {
    async list() {
      return selectAll.all().map((row) => ({
        kid: row.kid,
        algorithm: row.algorithm,
        publicJwk: JSON.parse(row.public_jwk) as Record<string, unknown>,
        privateJwk: JSON.parse(row.private_jwk) as Record<string, unknown>,
        createdAt: row.created_at,
      }));
    },
    async create(key) {
      insert.run(key.kid, key.algorithm, JSON.stringify(key.publicJwk), JSON.stringify(key.privateJwk), key.createdAt);
    },
  };
}
