import type { Sql } from './database.js';
import type { Store } from '../types.js';
import { toSigningKey, type SigningKeyRow } from '../rows.js';

export function createSigningKeysRepository(sql: Sql): Store['signingKeys'] {
  return {
    async list() {
      // Byte order, as SQLite sorts: every instance then takes the same key as the newest.
      const rows = await sql<SigningKeyRow[]>`
        SELECT kid, algorithm, public_jwk, private_jwk, created_at FROM signing_keys ORDER BY created_at COLLATE "C", kid COLLATE "C"`;
      return rows.map(toSigningKey);
    },
    async create(key) {
      await sql`
        INSERT INTO signing_keys (kid, algorithm, public_jwk, private_jwk, created_at)
        VALUES (${key.kid}, ${key.algorithm}, ${JSON.stringify(key.publicJwk)}, ${JSON.stringify(key.privateJwk)}, ${key.createdAt})`;
    },
  };
}
