import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { expectStatus } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const fetchJwks = async (t: TestServer) => {
  const response = await t.call('GET', '/.well-known/jwks.json', { key: null });
  expectStatus(response, 200);
  return response.body as { keys: Record<string, unknown>[] };
};

describe('JWKS', () => {
  it('publishes one public ES256 key that verifies what the server signs', async () => {
    const t = await startTestServer();
    try {
      const jwks = await fetchJwks(t);
      expect(jwks.keys).toHaveLength(1);
      const [key] = jwks.keys;
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
      // Round trip: a token signed with the server's private key verifies against the set.
      const signing = await t.server.services.signingKeys.current();
      const privateKey = await importJWK(signing.privateJwk, 'ES256');
      const token = await new SignJWT({ hello: 'world' })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: signing.kid })
        .setIssuer('svc')
        .sign(privateKey);
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as never), { issuer: 'svc' });
      expect(payload.hello).toBe('world');
    } finally {
      await t.close();
    }
  });

  it('keeps the same key across restarts on the same database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-jwks-'));
    const dbPath = join(dir, 'svc.db');
    try {
      const first = await startTestServer({ dbPath });
      const before = await fetchJwks(first);
      await first.close();
      const second = await startServer({ dbPath, port: 0, log: () => {}, env: {} });
      try {
        const response = await fetch(`${second.url}/.well-known/jwks.json`);
        expect(await response.json()).toEqual(before);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
