import { randomUUID } from 'node:crypto';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { walletOf } from '../../server/auth/identity-tokens.js';
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
import { pricedProvider, stallingChatAdapter } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type KeyPair = { publicKey: CryptoKey; privateKey: CryptoKey };
const newKeyPair = (): Promise<KeyPair> => generateKeyPair('ES256', { extractable: true });

/** An app with identity-provider configuration, and a way to issue its users' tokens. */
async function idpApp(t: TestServer, options: Parameters<typeof createOwnerApp>[1] = {}) {
  const app = await createOwnerApp(t, { balanceCredits: 100, default_user_credits: 5, ...options });
  const idpAppId = `idp-${randomUUID()}`;
  let keys = await newKeyPair();
  const configure = async (pair: KeyPair) => {
    keys = pair;
    const response = await t.call('PUT', appPath(app.appUuid, 'idp'), {
      body: { idp_app_id: idpAppId, idp_verification_key: await exportSPKI(pair.publicKey) },
    });
    expectStatus(response, 200);
  };
  await configure(keys);
  /** A token as the identity provider issues it, for the given wallet. */
  const token = (address: string, claims: JWTPayload = {}, key: CryptoKey | Uint8Array = keys.privateKey, alg = 'ES256') => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    return new SignJWT({
      iss: 'privy.io',
      aud: idpAppId,
      sub: `did:privy:${randomUUID()}`,
      iat: now,
      exp: now + 3600,
      sid: randomUUID(),
      linked_accounts: JSON.stringify([
        { type: 'email', address: 'a@b.c' },
        { type: 'wallet', address, chain_type: 'ethereum' },
      ]),
      ...claims,
    })
      .setProtectedHeader({ alg, typ: 'JWT' })
      .sign(key);
  };
  return { app, idpAppId, token, configure };
}

const userOf = async (t: TestServer, appUuid: string, address: string) => {
  const response = await t.call('GET', appPath(appUuid, 'users', address.toLowerCase()));
  expectStatus(response, 200);
  return response.body;
};

describe('identity tokens', () => {
  const t = useTestServer({ providers: [pricedProvider()] });

  it('signs a user in: chat completions work and credits balance is the user’s own', async () => {
    const { app, token } = await idpApp(t);
    const address = randomAddress();
    const jwt = await token(address);
    const answer = await chatWith(t, jwt);
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ object: 'chat.completion', model: 'local/echo' });
    const balance = await balanceWith(t, jwt);
    expectStatus(balance, 200);
    expect(balance.body).toEqual({ credits: 5, held_credits: 0, livemode: true });
    // The user is the wallet, lowercased, created with the app's default credits.
    expect(await userOf(t, app.appUuid, address)).toMatchObject({ address: address.toLowerCase(), credits: 5 });
    expect((await getApp(t, app.appUuid)).balance_credits).toBe(95);
  });

  it('takes the first wallet, else the first smart wallet, lowercased; else none', () => {
    const accounts = (list: unknown[]) => ({ linked_accounts: JSON.stringify(list) });
    const [a, b, c, d] = ['aa', 'bB', 'cc', 'Dd'].map((pair) => `0x${pair.repeat(20)}`) as [string, string, string, string];
    expect(
      walletOf(accounts([{ type: 'smart_wallet', address: a }, { type: 'wallet', address: b }, { type: 'wallet', address: c }])),
    ).toBe(b.toLowerCase());
    expect(walletOf(accounts([{ type: 'email', address: 'a@b.c' }, { type: 'smart_wallet', address: d }]))).toBe(d.toLowerCase());
    // A wallet is 0x and 40 hex digits, like the address path parameter: anything else is none.
    expect(walletOf(accounts([{ type: 'wallet', address: '0xBB' }]))).toBeNull();
    expect(walletOf(accounts([{ type: 'wallet', address: `${a}/../x` }]))).toBeNull();
    expect(walletOf(accounts([{ type: 'wallet', address: 'robert"); drop table' }]))).toBeNull();
    expect(walletOf(accounts([{ type: 'email', address: 'a@b.c' }]))).toBeNull();
    expect(walletOf({ linked_accounts: 'not json' })).toBeNull();
    expect(walletOf({})).toBeNull();
  });

  describe('refuses with 401', () => {
    const refused = async (jwt: string, message: RegExp) => {
      const response = await balanceWith(t, jwt);
      expectApiError(response, 401, { type: 'authentication_error', code: 'invalid_identity_token' });
      expect(response.body.error.message).toMatch(message);
    };
    /**
     * A token no app's key verifies gets one answer, whatever the reason: a stranger learns no app
     * id, audience or configuration detail from it.
     */
    const NO_HINT = /^The identity token is not valid\.$/;
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

    it('an unsigned token (alg none)', async () => {
      const { idpAppId } = await idpApp(t);
      const now = Math.floor(t.clock.now().getTime() / 1000);
      const payload = {
        iss: 'privy.io',
        aud: idpAppId,
        sub: 'did:privy:x',
        exp: now + 3600,
        linked_accounts: JSON.stringify([{ type: 'wallet', address: randomAddress() }]),
      };
      await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`, NO_HINT);
    });

    it('an HS256 token', async () => {
      const { token } = await idpApp(t);
      await refused(await token(randomAddress(), {}, new TextEncoder().encode('s'.repeat(32)), 'HS256'), NO_HINT);
    });

    it('a token signed with another key', async () => {
      const { token } = await idpApp(t);
      const other = await newKeyPair();
      await refused(await token(randomAddress(), {}, other.privateKey), NO_HINT);
    });

    it('a token for another audience', async () => {
      const { token } = await idpApp(t);
      await refused(await token(randomAddress(), { aud: 'some-other-idp-app' }), NO_HINT);
    });

    it('a token from another issuer', async () => {
      const { token } = await idpApp(t);
      await refused(await token(randomAddress(), { iss: 'evil.example' }), /issuer must be 'privy.io'/);
    });

    it('an expired token, after the clock skew', async () => {
      const { token } = await idpApp(t);
      const jwt = await token(randomAddress());
      t.clock.advance(3600_000 + 20_000);
      expectStatus(await balanceWith(t, jwt), 200); // within the skew
      t.clock.advance(15_000);
      await refused(jwt, /expired/);
    });

    it('a token that is not valid yet', async () => {
      const { token } = await idpApp(t);
      const now = Math.floor(t.clock.now().getTime() / 1000);
      await refused(await token(randomAddress(), { nbf: now + 120 }), /not valid yet/);
      expectStatus(await balanceWith(t, await token(randomAddress(), { nbf: now + 10 })), 200); // within the skew
    });

    it('a token without a wallet', async () => {
      const { token } = await idpApp(t);
      await refused(
        await token(randomAddress(), { linked_accounts: JSON.stringify([{ type: 'email', address: 'a@b.c' }]) }),
        /wallet/,
      );
    });

    it('a token for an app whose identity-provider configuration was deleted', async () => {
      const { app, token } = await idpApp(t);
      const jwt = await token(randomAddress());
      expectStatus(await balanceWith(t, jwt), 200);
      expectStatus(await t.call('DELETE', appPath(app.appUuid, 'idp')), 200);
      await refused(jwt, NO_HINT);
    });

    it('a token that is not a JWT', async () => {
      await refused('not-a-jwt', NO_HINT);
    });
  });

  it('drops the cached key when the verification key changes', async () => {
    const { token, configure } = await idpApp(t);
    const oldToken = await token(randomAddress());
    expectStatus(await balanceWith(t, oldToken), 200);
    await configure(await newKeyPair());
    expectApiError(await balanceWith(t, oldToken), 401, { code: 'invalid_identity_token' });
    expectStatus(await balanceWith(t, await token(randomAddress())), 200);
  });

  it('creates a new user exactly once under 20 concurrent first requests', async () => {
    const { app, token } = await idpApp(t);
    const address = randomAddress();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => token(address)));
    const answers = await Promise.all(tokens.map((jwt) => balanceWith(t, jwt)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.every((a) => a.body.credits === 5)).toBe(true);
    expect(await t.server.store.metering.balance({ kind: 'app', appUuid: app.appUuid })).toEqual({
      balanceMicro: 95_000_000,
      heldMicro: 0,
    });
    const users = await t.call('GET', appPath(app.appUuid, 'users'));
    expect(users.body.data).toHaveLength(1);
    expect(users.body.data[0]).toMatchObject({ address: address.toLowerCase(), credits: 5 });
  });

  it('answers 402 when the app cannot give a new user its default credits', async () => {
    const { token } = await idpApp(t, { balanceCredits: 1, default_user_credits: 5 });
    const response = await balanceWith(t, await token(randomAddress()));
    expectApiError(response, 402, { type: 'insufficient_credits' });
    expect(response.body.error.message).toMatch(/default 5 credits/);
  });

  it('refuses developer operations with 403', async () => {
    const { app, token } = await idpApp(t);
    const jwt = await token(randomAddress());
    expectApiError(await t.call('GET', `${API}/developer/apps`, bearer(jwt)), 403, { type: 'permission_denied' });
    expectApiError(await t.call('GET', appPath(app.appUuid, 'users'), bearer(jwt)), 403, { type: 'permission_denied' });
  });

  describe('who pays', () => {
    const appBalance = async (appUuid: string) =>
      (await t.server.store.metering.balance({ kind: 'app', appUuid })).balanceMicro;

    it('on a standard app, the user’s own credits', async () => {
      const { app, token } = await idpApp(t, { default_user_credits: 50 });
      const address = randomAddress();
      const jwt = await token(address);
      expectStatus(await chatWith(t, jwt, 'paid/echo'), 200);
      expect(await appBalance(app.appUuid)).toBe(50_000_000); // only the grant left the app
      const user = await userOf(t, app.appUuid, address);
      expect(user.credits).toBeLessThan(50);
      expect(user.spent_credits).toBeCloseTo(50 - user.credits, 6);
      expect((await balanceWith(t, jwt)).body.credits).toBe(user.credits);
    });

    it('on a pooled app, the app’s balance', async () => {
      const { app, token } = await idpApp(t, { app_type: 'pooled_api', default_user_credits: 50 });
      const address = randomAddress();
      const jwt = await token(address);
      expectStatus(await chatWith(t, jwt, 'paid/echo'), 200);
      const user = await userOf(t, app.appUuid, address);
      expect(user).toMatchObject({ credits: 0, credit_limit: 50 });
      expect(user.spent_credits).toBeGreaterThan(0);
      expect(await appBalance(app.appUuid)).toBe(100_000_000 - Math.round(user.spent_credits * 1e6));
    });

    it('on a pooled app, stops a user at their credit limit with 402 naming it', async () => {
      const { app, token } = await idpApp(t, { app_type: 'pooled_api', default_user_credits: 1 });
      const address = randomAddress();
      const jwt = await token(address);
      const refused = await chatWith(t, jwt, 'paid/echo');
      expectApiError(refused, 402, { type: 'insufficient_credits' });
      expect(refused.body.error.message).toMatch(/Credit limit reached: .* may spend 1 credits/);
      expect(await appBalance(app.appUuid)).toBe(100_000_000);
      const raised = await t.call('PATCH', appPath(app.appUuid, 'users', address.toLowerCase()), { body: { credits: 30 } });
      expectStatus(raised, 200);
      expectStatus(await chatWith(t, jwt, 'paid/echo'), 200);
    });

    it('on a pooled app, counts requests in flight against the limit', async () => {
      // A separate server whose paid model never answers: the first request stays in flight.
      const stalling = stallingChatAdapter();
      const server = await startTestServer({ providers: [pricedProvider(stalling)], shutdownGraceMs: 100 });
      try {
        // Each request holds about 9 credits (its input bounded by bytes at 0.1, max 20 output tokens at
        // 0.2): one fits in 12, two do not.
        const { app, token } = await idpApp(server, { app_type: 'pooled_api', default_user_credits: 12 });
        const jwt = await token(randomAddress());
        const first = new AbortController();
        const inFlight = fetch(`${server.url}${API}/chat/completions`, {
          method: 'POST',
          signal: first.signal,
          headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }),
        }).catch(() => null);
        await stalling.started;
        const second = await chatWith(server, jwt, 'paid/echo');
        expectApiError(second, 402, { type: 'insufficient_credits' });
        expect(second.body.error.message).toMatch(/held by requests in flight/);
        first.abort();
        await inFlight;
        await stalling.aborted;
        // The aborted request settles (nothing charged) and its hold, on the app and the user, ends.
        await vi.waitFor(async () =>
          expect((await server.server.store.metering.balance({ kind: 'app', appUuid: app.appUuid })).heldMicro).toBe(0),
          { timeout: 15_000, interval: 20 },
        );

      } finally {
        await server.close();
      }
    });
  });
});
