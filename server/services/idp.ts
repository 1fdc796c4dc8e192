import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import type { Store } from '../store/types.js';
import { isSandboxIdp } from '../auth/identity-tokens.js';

/** Identity tokens are ES256: the verification key must be a P-256 public key. */
function parseVerificationKey(pem: string): KeyObject {
  if (/PRIVATE KEY/.test(pem)) {
    throw invalidRequest('idp_verification_key is a private key; give the public key (PEM, SPKI).', 'idp_verification_key');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw invalidRequest(
      'idp_verification_key does not parse as a public key; give a PEM "-----BEGIN PUBLIC KEY-----" block.',
      'idp_verification_key',
    );
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw invalidRequest('idp_verification_key must be an ES256 (EC P-256) public key.', 'idp_verification_key');
  }
  return key;
}

export function fingerprint(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
}

export function createIdpService(deps: { store: Store; clock: Clock; sandboxKey: () => Promise<JsonWebKey> }) {
  const { store, clock } = deps;

  /** The given key; for a sandbox id without one, the key this server signs sandbox tokens with. */
  async function verificationKey(input: { idp_app_id: string; idp_verification_key?: string | undefined }): Promise<KeyObject> {
    if (input.idp_verification_key !== undefined) return parseVerificationKey(input.idp_verification_key);
    if (!isSandboxIdp(input.idp_app_id)) {
      throw invalidRequest('idp_verification_key is required (a sandbox_ id needs none).', 'idp_verification_key', 'missing_field');
    }
    return createPublicKey({ key: await deps.sandboxKey(), format: 'jwk' });
  }

  return {
    async set(appUuid: string, input: { idp_app_id: string; idp_verification_key?: string | undefined }) {
      const key = await verificationKey(input);
      const pem = key.export({ type: 'spki', format: 'pem' }).toString();
      const result = await store.apps.setIdp(
        appUuid,
        { idpAppId: input.idp_app_id, verificationKey: pem },
        clock.now().toISOString(),
      );
      if (result === 'taken') {
        throw conflict(`The identity-provider app id ${input.idp_app_id} is already used by another app.`, 'idp_app_id_taken');
      }
      return { app: result, fingerprint: fingerprint(key) };
    },

    async clear(appUuid: string, current: { idpAppId: string | null }) {
      if (!current.idpAppId) throw notFound('This app has no identity-provider configuration.', 'idp_not_configured');
      await store.apps.setIdp(appUuid, null, clock.now().toISOString());
    },
  };
}
