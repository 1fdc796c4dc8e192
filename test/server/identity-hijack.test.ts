import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addDeveloper,
  API,
  appPath,
  bearer,
  createOwnerApp,
  expectApiError,
  expectStatus,
  randomAddress,
  useTestServer,
} from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';

/**
 * An app's `idp_app_id` and verification key are public, and any developer may configure them on
 * their own app. Such a copy must never change where the first app's users' tokens land: without
 * `X-SVC-App` a token goes to the app that took the id first; a copy is reached only by naming it.
 */
type KeyPair = { publicKey: CryptoKey; privateKey: CryptoKey };
const newKeyPair = (): Promise<KeyPair> => generateKeyPair('ES256', { extractable: true });

describe('an identity provider configured again by another developer', () => {
  const t = useTestServer({ providers: [pricedProvider()] });

  /** Developer A's funded app (users start with 5 credits) and developer B's unfunded one (0). */
  async function twoDevelopers() {
    const a = await createOwnerApp(t, { balanceCredits: 100, default_user_credits: 20 });
    const b = await addDeveloper(t);
    return { a: a.appUuid, b: b.appUuid, bKey: b.key, idpAppId: `idp-${randomUUID()}` };
  }

  const configure = async (appUuid: string, idpAppId: string, pair: KeyPair, key?: string) =>
    expectStatus(
      await t.call('PUT', appPath(appUuid, 'idp'), {
        key,
        body: { idp_app_id: idpAppId, idp_verification_key: await exportSPKI(pair.publicKey) },
      }),
      200,
    );

  const unconfigure = async (appUuid: string) => expectStatus(await t.call('DELETE', appPath(appUuid, 'idp')), 200);

  /** A token as the identity provider issues it to the user with this wallet. */
  const tokenFor = (pair: KeyPair, idpAppId: string, address = randomAddress()) => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    return new SignJWT({ linked_accounts: JSON.stringify([{ type: 'wallet', address }]) })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer('privy.io')
      .setAudience(idpAppId)
      .setSubject(`did:privy:${randomUUID()}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(pair.privateKey);
  };

  /** Call options for the token's user, naming an app in X-SVC-App when given. */
  const as = (token: string, appHeader?: string) =>
    appHeader === undefined ? bearer(token) : { key: null, headers: { ...bearer(token).headers, 'x-svc-app': appHeader } };

  /** The app the token signs its user into, as GET /config names the caller's. */
  async function landsIn(token: string, appHeader?: string): Promise<string> {
    const response = await t.call('GET', `${API}/config`, as(token, appHeader));
    expectStatus(response, 200);
    expect(response.body.caller).toMatchObject({ kind: 'user', livemode: true });
    return response.body.caller.app_uuid as string;
  }

  const refused = async (token: string, appHeader?: string) => {
    const response = await t.call('GET', `${API}/config`, as(token, appHeader));
    expectApiError(response, 401, { type: 'authentication_error', code: 'invalid_identity_token' });
    expect(response.body.error.message).toBe('The identity token is not valid.');
  };

  const creditsOf = async (token: string, appHeader?: string) => {
    const response = await t.call('GET', `${API}/credits/balance`, as(token, appHeader));
    expectStatus(response, 200);
    return response.body.credits as number;
  };

  const usersOf = async (appUuid: string, key?: string) => {
    const response = await t.call('GET', appPath(appUuid, 'users'), { key });
    expectStatus(response, 200);
    return (response.body.data as { address: string; credits: number }[]).map(({ address, credits }) => ({ address, credits }));
  };

  const chat = (token: string, appHeader?: string) =>
    t.call('POST', `${API}/chat/completions`, {
      ...as(token, appHeader),
      body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] },
    });

  it("leaves the first app's users where they were; X-SVC-App reaches the copy, as a new user of the copy", async () => {
    const { a, b, bKey, idpAppId } = await twoDevelopers();
    const pair = await newKeyPair();
    await configure(a, idpAppId, pair);
    await configure(b, idpAppId, pair, bKey);
    const address = randomAddress();
    const token = await tokenFor(pair, idpAppId, address);

    expect(await landsIn(token)).toBe(a);
    expectStatus(await chat(token), 200);
    const spentAtA = await creditsOf(token);
    expect(spentAtA).toBeLessThan(20);
    expect(await usersOf(b, bKey)).toEqual([]);

    // Only a client that names the copy gets there, and there it is a stranger: a new user with
    // the copy's default credits (none), who cannot spend the first app's user's credits.
    expect(await landsIn(token, b)).toBe(b);
    expect(await creditsOf(token, b)).toBe(0);
    expectApiError(await chat(token, b), 402, { type: 'insufficient_credits' });
    expect(await usersOf(b, bKey)).toEqual([{ address: address.toLowerCase(), credits: 0 }]);
    expect(await usersOf(a)).toEqual([{ address: address.toLowerCase(), credits: spentAtA }]);
    expect(await landsIn(token, a)).toBe(a);
    expect(await landsIn(token, a.toUpperCase())).toBe(a);
  });

  it('keeps the first app first whoever configures again: the copy, or the first app with the same pair', async () => {
    const { a, b, bKey, idpAppId } = await twoDevelopers();
    const pair = await newKeyPair();
    await configure(a, idpAppId, pair);
    await configure(b, idpAppId, pair, bKey);
    await configure(b, idpAppId, pair, bKey);
    expect(await landsIn(await tokenFor(pair, idpAppId))).toBe(a);
    // Configured again, later than the copy: the app keeps its place while it keeps the id.
    t.clock.advance(60_000);
    await configure(a, idpAppId, pair);
    expect(await landsIn(await tokenFor(pair, idpAppId))).toBe(a);
    expect(await landsIn(await tokenFor(pair, idpAppId), b)).toBe(b);
  });

  it('keeps its place through a new key, and a token it refuses never falls through to a copy', async () => {
    const { a, b, bKey, idpAppId } = await twoDevelopers();
    const first = await newKeyPair();
    await configure(a, idpAppId, first);
    await configure(b, idpAppId, first, bKey);
    const old = await tokenFor(first, idpAppId);

    // The provider's key changes; the copy follows at once, the first app a minute later.
    const second = await newKeyPair();
    await configure(b, idpAppId, second, bKey);
    t.clock.advance(60_000);
    await configure(a, idpAppId, second);
    expect(await landsIn(await tokenFor(second, idpAppId))).toBe(a);

    // A token signed with a key only the copy still has is the first app's to refuse.
    await configure(b, idpAppId, first, bKey);
    await refused(old);
    expect(await landsIn(old, b)).toBe(b);
    expect(await usersOf(a)).toHaveLength(1);
  });

  it('a token whose key only a later app has is refused unless the client names that app', async () => {
    const { a, b, bKey, idpAppId } = await twoDevelopers();
    await configure(a, idpAppId, await newKeyPair());
    const theirs = await newKeyPair();
    await configure(b, idpAppId, theirs, bKey);
    const token = await tokenFor(theirs, idpAppId);
    await refused(token);
    await refused(token, a);
    expect(await landsIn(token, b)).toBe(b);
    expect(await usersOf(a)).toEqual([]);
  });

  it('gives the place up with the configuration or the app: the next holder answers, and a returning app comes after it', async () => {
    const { a, b, bKey, idpAppId } = await twoDevelopers();
    const pair = await newKeyPair();
    await configure(a, idpAppId, pair);
    await configure(b, idpAppId, pair, bKey);

    await unconfigure(a);
    expect(await landsIn(await tokenFor(pair, idpAppId))).toBe(b);
    await configure(a, idpAppId, pair);
    expect(await landsIn(await tokenFor(pair, idpAppId))).toBe(b);
    expect(await landsIn(await tokenFor(pair, idpAppId), a)).toBe(a);

    // A third developer's copy, then the holder in front of it goes away with its app.
    const c = await addDeveloper(t, 'developer-c');
    await configure(c.appUuid, idpAppId, pair, c.key);
    expectStatus(await t.call('DELETE', appPath(b), { key: bKey }), 200);
    expect(await landsIn(await tokenFor(pair, idpAppId))).toBe(a);
  });
});
