import { randomUUID } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportSPKI,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { SANDBOX_ISSUER } from '../../server/auth/identity-tokens.js';
import { sandboxWalletOf } from '../../server/handlers/sandbox.js';
import {
  API,
  appPath,
  balanceWith,
  bearer,
  chatWith,
  createOwnerApp,
  expectApiError,
  expectStatus,
  getApp,
  randomAddress,
  useTestServer,
} from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import type { TestServer } from '../helpers/server.js';

const anyPem = async () => exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey);

/** Gives an app identity-provider configuration through the API. */
async function setIdp(t: TestServer, appUuid: string, idpAppId: string, pem?: string) {
  const response = await t.call('PUT', appPath(appUuid, 'idp'), {
    body: { idp_app_id: idpAppId, idp_verification_key: pem ?? (await anyPem()) },
  });
  expectStatus(response, 200);
}

/** A funded app of the owner with a test and a live key, with the given identity-provider app id. */
async function appWithKeys<Id extends string | null>(t: TestServer, idpAppId: Id) {
  const app = await createOwnerApp(t, { balanceCredits: 100, default_user_credits: 5 });
  if (idpAppId !== null) await setIdp(t, app.appUuid, idpAppId);
  const testKey = (await t.server.services.apiKeys.create(app.appUuid, { name: 'sandbox', is_test: true })).secret;
  const liveKey = (await t.server.services.apiKeys.create(app.appUuid, { name: 'live', is_test: false })).secret;
  const issue = (key: string = testKey, body: Record<string, unknown> = {}) =>
    t.call('POST', `${API}/sandbox/identity-token`, { key, body });
  return { app, idpAppId, testKey, liveKey, issue };
}

/** An app on the sandbox identity provider. */
const sandboxApp = (t: TestServer) => appWithKeys(t, `sandbox_${randomUUID()}`);


/** Signs a token with the server's own key (as the sandbox does), with any claims. */
async function signWithServerKey(t: TestServer, claims: Record<string, unknown>) {
  const signing = await t.server.services.signingKeys.current();
  const now = Math.floor(t.clock.now().getTime() / 1000);
  return new SignJWT({ iat: now, exp: now + 600, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: signing.kid })
    .sign(await importJWK(signing.privateJwk, 'ES256'));
}

describe('sandbox identity tokens', () => {
  const t = useTestServer({ providers: [pricedProvider()] });

  it('issues a token to a test key; it signs its user in for chat completions and credits balance', async () => {
    const { app, idpAppId, issue } = await sandboxApp(t);
    const response = await issue();
    expectStatus(response, 200);
    const now = t.clock.now().getTime();
    expect(response.body).toEqual({
      token: expect.any(String),
      address: sandboxWalletOf(app.appUuid),
      expires_at: new Date(Math.floor(now / 1000) * 1000 + 3600_000).toISOString(),
      issuer: SANDBOX_ISSUER,
      audience: idpAppId,
    });
    const { token } = response.body;
    expect(decodeProtectedHeader(token)).toMatchObject({
      alg: 'ES256',
      typ: 'JWT',
      kid: (await t.server.services.signingKeys.current()).kid,
    });

    const answer = await chatWith(t, token);
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ object: 'chat.completion', model: 'local/echo' });
    const balance = await balanceWith(t, token);
    expectStatus(balance, 200);
    expect(balance.body).toEqual({ credits: 5, held_credits: 0, livemode: false });
    // A test-mode user, with its default credits in play money: only test keys see it.
    const userPath = appPath(app.appUuid, 'users', sandboxWalletOf(app.appUuid));
    expectApiError(await t.call('GET', userPath), 404, { code: 'user_not_found' });
    const reader = (await t.server.services.apiKeys.create(app.appUuid, { name: 'reader', role: 'read_only', is_test: true })).secret;
    const user = await t.call('GET', userPath, { key: reader });
    expectStatus(user, 200);
    expect(user.body).toMatchObject({ address: sandboxWalletOf(app.appUuid), credits: 5 });
  });

  it('a sandbox_ id needs no verification key: the server’s own key is kept as the app’s', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 10 });
    const idpAppId = `sandbox_${randomUUID()}`;
    const set = await t.call('PUT', appPath(app.appUuid, 'idp'), { body: { idp_app_id: idpAppId } });
    expectStatus(set, 200);
    expect(set.body.key_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const testKey = (await t.server.services.apiKeys.create(app.appUuid, { name: 'sandbox', is_test: true })).secret;
    const issued = await t.call('POST', `${API}/sandbox/identity-token`, { key: testKey, body: {} });
    expectStatus(issued, 200);
    expectStatus(await balanceWith(t, issued.body.token), 200);
  });

  it('any other id still needs its verification key (400 naming it)', async () => {
    const app = await createOwnerApp(t);
    const refused = await t.call('PUT', appPath(app.appUuid, 'idp'), { body: { idp_app_id: 'real-idp-app' } });
    expectApiError(refused, 400, { param: 'idp_verification_key', code: 'missing_field' });
  });

  it('takes the wallet and lifetime asked for; the default wallet is the same on every call', async () => {
    const { app, issue } = await sandboxApp(t);
    const address = randomAddress();
    const asked = await issue(undefined, { address, expires_in: 60 });
    expectStatus(asked, 200);
    expect(asked.body.address).toBe(address.toLowerCase());
    expect(asked.body.expires_at).toBe(new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000 + 60_000).toISOString());
    expect((await balanceWith(t, asked.body.token)).status).toBe(200);
    const [first, second] = [await issue(), await issue()];
    expect(first.body.address).toBe(second.body.address);
    expect(first.body.address).toBe(sandboxWalletOf(app.appUuid));
    expect(first.body.token).not.toBe(second.body.token); // a fresh subject each time

    t.clock.advance(60_000 + 31_000);
    expectApiError(await balanceWith(t, asked.body.token), 401, { code: 'invalid_identity_token' });
    for (const expires_in of [59, 86_401]) expectApiError(await issue(undefined, { expires_in }), 400);
    expectApiError(await issue(undefined, { address: '0x123' }), 400);
  });

  it('keeps its users on the offline local provider, free', async () => {
    const { app, issue } = await sandboxApp(t);
    const { token } = (await issue()).body;
    expectApiError(await chatWith(t, token, 'paid/echo'), 403, { code: 'test_key_not_allowed' });
    expectStatus(await chatWith(t, token), 200);
    expect((await balanceWith(t, token)).body).toEqual({ credits: 5, held_credits: 0, livemode: false });
    expect((await getApp(t, app.appUuid)).balance_credits).toBe(100); // play money: no live credit moved
  });

  it('refuses a live key with 403', async () => {
    const { issue, liveKey } = await sandboxApp(t);
    const response = await issue(liveKey);
    expectApiError(response, 403, { type: 'permission_denied', code: 'test_key_required' });
    expect(response.body.error.message).toMatch(/test keys \(svc_test_…\)/);
  });

  it('refuses with 409 for an app without a sandbox identity provider, saying how to set one', async () => {
    for (const idpAppId of [null, `idp-${randomUUID()}`]) {
      const { app, issue } = await appWithKeys(t, idpAppId);
      const response = await issue();
      expectApiError(response, 409, { type: 'conflict', code: 'sandbox_idp_required' });
      expect(response.body.error.message).toContain(`svc api developer apps idp create ${app.appUuid} --idp-app-id sandbox_<name>`);
    }
  });

  it('refuses identity tokens and unauthenticated calls', async () => {
    const { issue } = await sandboxApp(t);
    const { token } = (await issue()).body;
    expectApiError(await t.call('POST', `${API}/sandbox/identity-token`, { ...bearer(token), body: {} }), 403);
    expectApiError(await t.call('POST', `${API}/sandbox/identity-token`, { key: null, body: {} }), 401);
  });

  it('a token signed by the server never verifies for an app with a real identity provider, even for its audience', async () => {
    const realIdpAppId = `idp-${randomUUID()}`;
    const real = await createOwnerApp(t, { balanceCredits: 100, default_user_credits: 5 });
    await setIdp(t, real.appUuid, realIdpAppId);
    const linked_accounts = JSON.stringify([{ type: 'wallet', address: randomAddress() }]);
    for (const iss of [SANDBOX_ISSUER, 'privy.io']) {
      const forged = await signWithServerKey(t, { iss, aud: realIdpAppId, sub: 'did:svc:x', linked_accounts });
      const response = await balanceWith(t, forged);
      expectApiError(response, 401, { code: 'invalid_identity_token' });
      expect(response.body.error.message).toBe('The identity token is not valid.');
    }
  });

  it('a real-provider-style token signed by another key never verifies for a sandbox app', async () => {
    const { idpAppId, app } = await sandboxApp(t);
    const other = await generateKeyPair('ES256', { extractable: true });
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const linked_accounts = JSON.stringify([{ type: 'wallet', address: randomAddress() }]);
    const sign = (header: Record<string, unknown>, iss: string) =>
      new SignJWT({ iss, aud: idpAppId, sub: 'did:privy:x', iat: now, exp: now + 600, linked_accounts })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...header })
        .sign(other.privateKey);
    const signing = await t.server.services.signingKeys.current();
    for (const token of [
      await sign({}, 'privy.io'),
      await sign({}, SANDBOX_ISSUER),
      await sign({ kid: signing.kid }, SANDBOX_ISSUER), // borrowing the server's kid does not help
      await sign({ kid: 'someone-else' }, SANDBOX_ISSUER),
    ]) {
      const response = await balanceWith(t, token);
      expectApiError(response, 401, { code: 'invalid_identity_token' });
      expect(response.body.error.message).toBe('The identity token is not valid.');
    }
    // The server's own key with the real provider's issuer is refused too.
    const wrongIssuer = await signWithServerKey(t, { iss: 'privy.io', aud: idpAppId, linked_accounts, svc_app: app.appUuid });
    const response = await balanceWith(t, wrongIssuer);
    expectApiError(response, 401, { code: 'invalid_identity_token' });
    expect(response.body.error.message).toMatch(/issuer must be 'svc-sandbox'/);
  });

  it('issues tokens that verify against the published JWK set', async () => {
    const { idpAppId, issue } = await sandboxApp(t);
    const address = randomAddress();
    const { token } = (await issue(undefined, { address })).body;
    const options = { issuer: SANDBOX_ISSUER, audience: idpAppId, algorithms: ['ES256'], currentDate: t.clock.now() };

    const remote = await jwtVerify(token, createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`)), options);
    const published = await t.call('GET', '/.well-known/jwks.json', { key: null });
    expectStatus(published, 200);
    const local = await jwtVerify(token, createLocalJWKSet(published.body), options);
    for (const { payload } of [remote, local]) {
      expect(payload).toMatchObject({ iss: SANDBOX_ISSUER, aud: idpAppId, sub: expect.stringMatching(/^did:svc:/) });
      expect(payload.exp! - payload.iat!).toBe(3600);
      expect(JSON.parse(payload.linked_accounts as string)).toEqual([{ type: 'wallet', address: address.toLowerCase() }]);
    }
  });
});
