import { randomUUID } from 'node:crypto';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { API, appPath, bearer, createOwnerApp, expectStatus, randomAddress } from './api.js';
import type { TestServer } from './server.js';

/**
 * Live end users of a funded app: the app trusts an identity provider whose key the test holds,
 * and each user is a wallet with a token as that provider issues it (live, so their requests are
 * held and charged, unlike a sandbox user's).
 */
export async function liveUsersApp(t: TestServer, options: Parameters<typeof createOwnerApp>[1] = {}) {
  const app = await createOwnerApp(t, { balanceCredits: 1000, ...options });
  const idpAppId = `idp-${randomUUID()}`;
  const keys = await generateKeyPair('ES256', { extractable: true });
  const configured = await t.call('PUT', appPath(app.appUuid, 'idp'), {
    body: { idp_app_id: idpAppId, idp_verification_key: await exportSPKI(keys.publicKey) },
  });
  expectStatus(configured, 200);

  /**
   * A user (a fresh wallet unless given) and a token to call as them, good for an hour of the
   * server's clock from now: after moving the clock further, ask again for the same address.
   */
  async function user(address: string = randomAddress()) {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const token = await new SignJWT({
      iss: 'privy.io',
      aud: idpAppId,
      sub: `did:privy:${randomUUID()}`,
      iat: now,
      exp: now + 3600,
      linked_accounts: JSON.stringify([{ type: 'wallet', address, chain_type: 'ethereum' }]),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .sign(keys.privateKey);
    return { address: address.toLowerCase(), token, as: bearer(token) };
  }
  return { appUuid: app.appUuid, user };
}

/** A chat request of `paid/echo` (see pricedProvider) as an end user, on `server`. */
export const userChat = (server: TestServer, token: string, content = 'pay', maxTokens = 10) =>
  server.call('POST', `${API}/chat/completions`, {
    ...bearer(token),
    body: { model: 'paid/echo', max_tokens: maxTokens, messages: [{ role: 'user', content }] },
  });
