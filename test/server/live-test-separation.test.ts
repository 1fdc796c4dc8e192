import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { KeyRole } from '../../src/contract/operation.js';
import { API, appPath, bearer, createOwnerApp, expectApiError, expectStatus, randomAddress, useTestServer } from '../helpers/api.js';

/**
 * Live and test mode never meet (Stripe's rule, both ways): every object a key or a user can reach
 * is kept with its mode, and the other mode finds nothing — a plain 404, as for an object that
 * does not exist. Each test tries one kind of object from both sides.
 */
const t = useTestServer();

const MODES = [
  { owner: 'live', other: 'test' },
  { owner: 'test', other: 'live' },
] as const;
type Mode = (typeof MODES)[number]['owner'];

/** A new key of the owner's default app (or of `appUuid`) with this role, in this mode. */
async function keyFor(mode: Mode, role: KeyRole = 'inference', appUuid = t.appUuid): Promise<string> {
  const created = await t.server.services.apiKeys.create(appUuid, { name: `${mode} ${role}`, role, is_test: mode === 'test' });
  return created.secret;
}

/**
 * One wallet as a user of both modes of one app: signed in through the sandbox identity provider
 * it is a test-mode user; once the app is moved to a real identity provider, the same wallet
 * signs in as a live user. Each sign-in sets the app's provider first.
 */
async function walletOfBothModes() {
  const app = await createOwnerApp(t, { balanceCredits: 100, default_user_credits: 5 });
  const address = randomAddress().toLowerCase();
  const testKey = await keyFor('test', 'inference', app.appUuid);
  const idp = await generateKeyPair('ES256', { extractable: true });
  const setIdp = async (body: Record<string, string>) => expectStatus(await t.call('PUT', appPath(app.appUuid, 'idp'), { body }), 200);
  return {
    app,
    address,
    async signIn(mode: Mode) {
      if (mode === 'test') {
        await setIdp({ idp_app_id: `sandbox_${app.appUuid}` });
        const issued = await t.call('POST', `${API}/sandbox/identity-token`, { key: testKey, body: { address } });
        expectStatus(issued, 200);
        return bearer(issued.body.token as string);
      }
      const idpAppId = `idp-${app.appUuid}`;
      await setIdp({ idp_app_id: idpAppId, idp_verification_key: await exportSPKI(idp.publicKey) });
      const now = Math.floor(t.clock.now().getTime() / 1000);
      const token = await new SignJWT({ linked_accounts: JSON.stringify([{ type: 'wallet', address }]) })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .setIssuer('privy.io')
        .setAudience(idpAppId)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(idp.privateKey);
      return bearer(token);
    },
  };
}

describe('live and test mode never meet', () => {
  it('responses: the other mode cannot read one, its input items, cancel it, continue it or reference its items', async () => {
    for (const { owner, other } of MODES) {
      const ownerKey = owner === 'live' ? t.liveKey : t.testKey;
      const otherKey = other === 'live' ? t.liveKey : t.testKey;
      const created = await t.call('POST', `${API}/responses`, {
        key: ownerKey,
        body: { model: 'local/echo', input: `a ${owner} prompt`, background: true },
      });
      expectStatus(created, 200);
      const id = created.body.id as string;
      const items = await t.call('GET', `${API}/responses/${id}/input_items`, { key: ownerKey });
      expectStatus(items, 200);
      const itemId = items.body.data[0].id as string;

      // To the other mode it does not exist: the same answer as for an id never issued.
      const missing = await t.call('GET', `${API}/responses/resp_neverIssued`, { key: otherKey });
      const read = await t.call('GET', `${API}/responses/${id}`, { key: otherKey });
      expectApiError(read, 404, { type: 'not_found', code: 'response_not_found' });
      expect(read.body.error.message.replace(id, 'ID')).toBe(missing.body.error.message.replace('resp_neverIssued', 'ID'));
      expectApiError(await t.call('GET', `${API}/responses/${id}/input_items`, { key: otherKey }), 404, { code: 'response_not_found' });
      expectApiError(await t.call('POST', `${API}/responses/${id}/cancel`, { key: otherKey }), 404, { code: 'response_not_found' });
      const continued = await t.call('POST', `${API}/responses`, {
        key: otherKey,
        body: { model: 'local/echo', input: 'go on', previous_response_id: id },
      });
      expectApiError(continued, 404, { code: 'response_not_found', param: 'previous_response_id' });
      const referenced = await t.call('POST', `${API}/responses`, {
        key: otherKey,
        body: { model: 'local/echo', input: [{ type: 'item_reference', id: itemId }] },
      });
      expectApiError(referenced, 400, { code: 'item_not_found', param: 'input[0].id' });

      // Its own mode still reads it, and the other mode's cancel changed nothing.
      const mine = await t.call('GET', `${API}/responses/${id}`, { key: ownerKey });
      expectStatus(mine, 200);
      expect(mine.body.status).not.toBe('cancelled');
      const again = await t.call('GET', `${API}/responses/${id}/input_items`, { key: ownerKey });
      expect(again.body.data[0].content).toEqual([{ type: 'input_text', text: `a ${owner} prompt` }]);
    }
  });

  it('text channels: registrations of one identifier in each mode are two objects; neither mode sees, removes or blocks the other', async () => {
    const phone = '+14155550123';
    const text = (path: string) => `${API}/text/sms/${path}`;
    for (const { owner, other } of MODES) {
      const ownerKey = await keyFor(owner);
      const otherKey = await keyFor(other);
      expectStatus(await t.call('POST', text('register'), { key: ownerKey, body: { identifier: phone } }), 200);

      expect((await t.call('GET', text('status'), { key: otherKey })).body).toEqual({
        channel: 'sms',
        identifier: null,
        preferred_model: null,
        registered: false,
      });
      expectApiError(await t.call('GET', `${text('lookup')}?identifier=${encodeURIComponent(phone)}`, { key: otherKey }), 404, { type: 'not_found' });
      expectApiError(await t.call('DELETE', text('unregister'), { key: otherKey }), 404, { type: 'not_found' });
      // The same identifier is free in the other mode: registering it there is no 409…
      expectStatus(await t.call('POST', text('register'), { key: otherKey, body: { identifier: phone } }), 200);
      // …and removing it there leaves the owner's registration in place.
      expect((await t.call('DELETE', text('unregister'), { key: otherKey })).body).toMatchObject({ identifier: phone, registered: false });
      expect((await t.call('GET', text('status'), { key: ownerKey })).body).toMatchObject({ identifier: phone, registered: true });
      expect((await t.call('GET', `${text('lookup')}?identifier=${encodeURIComponent(phone)}`, { key: ownerKey })).body.registered).toBe(true);
      expectStatus(await t.call('DELETE', text('unregister'), { key: ownerKey }), 200);
    }
  });

  it('app users: a key lists and reads only its mode’s users; a wallet in both modes is two users', async () => {
    const wallet = await walletOfBothModes();
    const users = appPath(wallet.app.appUuid, 'users');
    // A live user, made by the live admin key; a test user, signed in through the sandbox.
    const liveAddress = randomAddress().toLowerCase();
    expectStatus(await t.call('POST', `${users}/${liveAddress}/top-up`, { body: { credits: 7 } }), 200);
    expectStatus(await t.call('GET', `${API}/credits/balance`, await wallet.signIn('test')), 200);
    const readers = {
      live: await keyFor('live', 'read_only', wallet.app.appUuid),
      test: await keyFor('test', 'read_only', wallet.app.appUuid),
    };
    const own = { live: liveAddress, test: wallet.address };
    for (const { owner, other } of MODES) {
      const listed = await t.call('GET', users, { key: readers[other] });
      expectStatus(listed, 200);
      expect(listed.body.data.map((u: { address: string }) => u.address)).toEqual([own[other]]);
      expectApiError(await t.call('GET', `${users}/${own[owner]}`, { key: readers[other] }), 404, { code: 'user_not_found' });
      expectStatus(await t.call('GET', `${users}/${own[owner]}`, { key: readers[owner] }), 200);
    }
    // The sandbox user's default credits are play money, in test mode only.
    expect((await t.call('GET', `${users}/${wallet.address}`, { key: readers.test })).body).toMatchObject({ credits: 5 });

    // Signing the same wallet in live makes a live user of its own, with its own default credits
    // from the app (not the sandbox user's row, which would have given it none).
    const live = await wallet.signIn('live');
    expect((await t.call('GET', `${API}/credits/balance`, live)).body).toMatchObject({ credits: 5, livemode: true });
    expect((await t.call('GET', `${users}/${wallet.address}`, { key: readers.live })).body).toMatchObject({ credits: 5 });
    // Live money moved only for live users: 5 + 7 to the topped-up user, 5 to the live wallet.
    expect((await t.call('GET', appPath(wallet.app.appUuid))).body.balance_credits).toBe(100 - 12 - 5);
    expect((await t.call('GET', users, { key: readers.test })).body.total).toBe(1);
    expect((await t.call('GET', users, { key: readers.live })).body.total).toBe(2);
  });

  it('subscriptions: the status in one mode never shows the other mode’s subscription', async () => {
    const PAID = 'https://app.example/ok';
    // live → test: the app's live subscription is not the test key's.
    const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'starter', interval: 'month', success_url: PAID } });
    expectStatus(session, 201);
    expect((await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await t.call('GET', `${API}/subscriptions/status`)).body).toMatchObject({ status: 'active', tier: 'starter' });
    expect((await t.call('GET', `${API}/subscriptions/status`, { key: t.testKey })).body).toMatchObject({ status: 'none', tier: null });

    // test → live: a sandbox user's subscription is not the same wallet's live one.
    const wallet = await walletOfBothModes();
    const sandbox = await wallet.signIn('test');
    const testSession = await t.call('POST', `${API}/subscriptions/checkout-session`, { ...sandbox, body: { tier: 'pro', interval: 'month', success_url: PAID } });
    expectStatus(testSession, 201);
    expect(testSession.body.livemode).toBe(false);
    expect((await fetch(`${testSession.body.url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await t.call('GET', `${API}/subscriptions/status`, sandbox)).body).toMatchObject({ status: 'active', tier: 'pro' });
    const live = await wallet.signIn('live');
    expect((await t.call('GET', `${API}/subscriptions/status`, live)).body).toMatchObject({ status: 'none', tier: null });
    // The live wallet may start its own: the test one does not count as its running subscription.
    expectStatus(await t.call('POST', `${API}/subscriptions/checkout-session`, { ...live, body: { tier: 'starter', interval: 'month' } }), 201);
  });

  it('billing history: each mode lists only its own checkout sessions and invoices', async () => {
    const funding = await t.call('POST', appPath(t.appUuid, 'fund'), { body: { credits: 500 } });
    expectStatus(funding, 201);
    const purchase = await t.call('POST', `${API}/credits/purchase`, { key: t.testKey, body: { credits: 600 } });
    expectStatus(purchase, 201);
    expect(purchase.body.livemode).toBe(false);
    const billing = { live: await keyFor('live', 'read_only'), test: await keyFor('test', 'read_only') };
    const seen = { live: funding.body.id as string, test: purchase.body.id as string };
    for (const { owner } of MODES) {
      const listed = await t.call('GET', `${API}/developer/billing`, { key: billing[owner] });
      expectStatus(listed, 200);
      expect({ total: listed.body.total, ids: listed.body.data.map((line: { id: string }) => line.id) }).toEqual({ total: 1, ids: [seen[owner]] });
    }
  });

  it('an operation of test mode only refuses live keys in the pipeline, before the body is read', async () => {
    const refused = await t.call('POST', `${API}/sandbox/identity-token`, { rawBody: '{not json', headers: { 'content-type': 'application/json' } });
    expectApiError(refused, 403, { type: 'permission_denied', code: 'test_key_required' });
    const docs = await t.call('GET', `${API}/docs/swagger.json`, { key: null });
    const operation = docs.body.paths['/api/v1/sandbox/identity-token'].post;
    expect(operation).toMatchObject({ 'x-svc-live-keys': false, 'x-svc-test-keys': true });
    expect(operation.description).toContain('(test keys only)');
  });
});
