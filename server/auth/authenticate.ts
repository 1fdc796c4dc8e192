import type { IncomingHttpHeaders } from 'node:http';
import type { AuthScheme } from '../../src/contract/operation.js';
import type { Clock } from '../clock.js';
import { forbidden, unauthorized } from '../errors.js';
import type { Store } from '../store/types.js';
import { APP_HEADER, createIdentityTokenVerifier, type IdentityTokenVerifierDeps } from './identity-tokens.js';
import { hashSecret, KEY_PATTERN, keyPrefix, sameHash } from './api-keys.js';
import type { Principal } from './principal.js';

/** Last-use times are written at most this often per key, to keep requests off the disk. */
const TOUCH_INTERVAL_MS = 60_000;

type Credentials = { scheme: 'api_key'; secret: string } | { scheme: 'identity_token'; token: string } | null;

function readCredentials(headers: IncomingHttpHeaders): Credentials {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return { scheme: 'api_key', secret: apiKey.trim() };
  const authorization = headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <API key or identity token>".');
  const token = match[1] as string;
  // The OpenAI SDKs send their apiKey as a bearer token: accept our keys there too.
  return token.startsWith('svc_') ? { scheme: 'api_key', secret: token } : { scheme: 'identity_token', token };
}

export function createAuthenticator(deps: {
  store: Store;
  clock: Clock;
  identityIssuer: string;
  signingKeys: IdentityTokenVerifierDeps['signingKeys'];
}) {
  const identityTokens = createIdentityTokenVerifier({ ...deps, issuer: deps.identityIssuer });

  async function byApiKey(secret: string): Promise<Principal> {
    if (!KEY_PATTERN.test(secret)) throw unauthorized('The API key is malformed: it should look like svc_live_… or svc_test_….', 'invalid_api_key');
    const hash = hashSecret(secret);
    // Found by the public prefix, then the hashes are compared in constant time.
    const candidates = await deps.store.apiKeys.findByPrefix(keyPrefix(secret));
    const owner = candidates.find((candidate) => sameHash(candidate.secretHash, hash));
    if (!owner) throw unauthorized('The API key is not valid (deleted, or never issued).', 'invalid_api_key');
    const now = deps.clock.now();
    // Refused from the very instant it expires (stored in UTC, so instants compare as text).
    if (owner.key.expiresAt !== null && owner.key.expiresAt <= now.toISOString()) {
      throw unauthorized(`The API key ${owner.key.keyId} expired at ${owner.key.expiresAt}.`, 'key_expired');
    }
    await deps.store.apiKeys.touch(
      owner.key.keyId,
      now.toISOString(),
      new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString(),
    );
    return {
      kind: 'api_key',
      developerId: owner.app.developerId,
      app: owner.app,
      keyId: owner.key.keyId,
      livemode: !owner.key.isTest,
      role: owner.key.role,
      budgeted: owner.key.budget !== null,
    };
  }

  return {
    /** The caller of an operation, or null for public operations; throws 401/403 otherwise. */
    async authenticate(headers: IncomingHttpHeaders, accepted: readonly AuthScheme[]): Promise<Principal | null> {
      if (accepted.includes('none')) return null;
      const credentials = readCredentials(headers);
      if (!credentials) {
        throw unauthorized('Authentication required: send an API key in X-API-KEY (or Authorization: Bearer).', 'missing_credentials');
      }
      if (credentials.scheme === 'identity_token') {
        if (!accepted.includes('identity_token')) {
          throw forbidden('This operation needs an API key; identity tokens cannot call it.');
        }
        const appHeader = headers[APP_HEADER];
        return identityTokens.authenticate(credentials.token, typeof appHeader === 'string' ? appHeader : undefined);
      }
      if (!accepted.includes('api_key')) throw forbidden('This operation does not accept API keys.');
      return byApiKey(credentials.secret);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
