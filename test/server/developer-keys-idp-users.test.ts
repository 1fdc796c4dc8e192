import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  appPath,
  createApp,
  createKey,
  createOwnerApp,
  expectApiError,
  expectStatus,
  getApp,
  randomAddress,
  useTestServer,
} from '../helpers/api.js';

const START = '2026-03-01T12:00:00.000Z';

describe('developer apps api-keys', () => {
  const t = useTestServer();

  it('creates a key (201) with a default name, never used yet', async () => {
    const response = await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: {} });
    expectStatus(response, 201);
    expect(response.body).toEqual({
      key_id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      name: 'default',
      is_test: false,
      role: 'inference',
      prefix: expect.stringMatching(/^svc_live_/),
      secret: expect.stringMatching(/^svc_live_[A-Za-z0-9]{40}$/),
      created_at: START,
      last_used_at: null,
      // No budget and no expiry unless asked for (test/server/key-budgets.test.ts).
      budget_credits: null,
      budget_period: null,
      budget_spent_credits: null,
      budget_resets_at: null,
      expires_at: null,
    });
  });

  it('accepts a create call without any body', async () => {
    expectStatus(await t.call('POST', appPath(t.appUuid, 'api-keys')), 201);
  });

  it('lists the keys of an app with paging and a total', async () => {
    const app = await createApp(t);
    const names = ['one', 'two', 'three'];
    for (const name of names) {
      t.clock.advance(1_000);
      await createKey(t, app.app_uuid, { name });
    }
    const all = await t.call('GET', appPath(app.app_uuid, 'api-keys'));
    expectStatus(all, 200);
    expect(all.body).toMatchObject({ limit: 50, offset: 0, total: 3 });
    expect(all.body.data.map((k: any) => k.name).sort()).toEqual([...names].sort());

    const page = await t.call('GET', `${appPath(app.app_uuid, 'api-keys')}?limit=2&offset=2`);
    expect(page.body).toMatchObject({ limit: 2, offset: 2, total: 3 });
    expect(page.body.data).toHaveLength(1);

    // The bootstrap app's keys are not mixed in.
    const ownerKeys = await t.call('GET', appPath(t.appUuid, 'api-keys'));
    expect(ownerKeys.body.total).toBe(2);
  });

  it('deletes a key: it leaves the list and cannot be deleted twice', async () => {
    const key = await createKey(t, t.appUuid, { name: 'temp' });
    const deleted = await t.call('DELETE', appPath(t.appUuid, 'api-keys', key.key_id));
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ id: key.key_id, object: 'api_key', deleted: true });

    const list = await t.call('GET', appPath(t.appUuid, 'api-keys'));
    expect(list.body.data.map((k: any) => k.key_id)).not.toContain(key.key_id);
    expect(list.body.total).toBe(2);

    expectApiError(await t.call('DELETE', appPath(t.appUuid, 'api-keys', key.key_id)), 404, { code: 'api_key_not_found' });
  });

  it('answers 404 for an unknown key id and 400 for a malformed one', async () => {
    expectApiError(await t.call('DELETE', appPath(t.appUuid, 'api-keys', 'key_doesNotExist123')), 404, { type: 'not_found' });
    expectApiError(await t.call('DELETE', appPath(t.appUuid, 'api-keys', 'not-a-key')), 400, { param: 'key_id' });
  });

  it('does not delete a key through another app of the same developer', async () => {
    const other = await createApp(t);
    const key = await createKey(t, t.appUuid, { role: 'read_only' });
    expectApiError(await t.call('DELETE', appPath(other.app_uuid, 'api-keys', key.key_id)), 404);
    expectStatus(await t.call('GET', appPath(t.appUuid), { key: key.secret }), 200);
  });

  it('refuses a blank key name', async () => {
    expectApiError(await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: { name: ' ' } }), 400, { param: 'name' });
  });
});

/** PEM of a fresh public key, plus the key itself. */
function publicKeyPem(type: 'p256' | 'p384' | 'rsa'): { pem: string; key: KeyObject; privatePem: string } {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: type === 'p256' ? 'prime256v1' : 'secp384r1' });
  return {
    pem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    key: pair.publicKey,
    privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

const fingerprintOf = (key: KeyObject) =>
  createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');

describe('developer apps idp', () => {
  const t = useTestServer();
  const setIdp = (appUuid: string, body: Record<string, unknown>) => t.call('PUT', appPath(appUuid, 'idp'), { body });

  it('stores a P-256 public key and reports its fingerprint', async () => {
    const { pem, key } = publicKeyPem('p256');
    t.clock.advance(30_000);
    const response = await setIdp(t.appUuid, { idp_app_id: 'idp-app-1', idp_verification_key: pem });
    expectStatus(response, 200);
    expect(response.body).toEqual({
      app_uuid: t.appUuid,
      idp_app_id: 'idp-app-1',
      key_fingerprint: fingerprintOf(key),
      updated_at: '2026-03-01T12:00:30.000Z',
    });
    expect(await getApp(t, t.appUuid)).toMatchObject({ idp_configured: true, idp_app_id: 'idp-app-1' });
  });

  it('replaces the configuration when set again', async () => {
    await setIdp(t.appUuid, { idp_app_id: 'first', idp_verification_key: publicKeyPem('p256').pem });
    const second = publicKeyPem('p256');
    const response = await setIdp(t.appUuid, { idp_app_id: 'second', idp_verification_key: second.pem });
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ idp_app_id: 'second', key_fingerprint: fingerprintOf(second.key) });
    expect((await getApp(t, t.appUuid)).idp_app_id).toBe('second');
  });

  it.each([
    ['garbage', () => 'not a key at all'],
    ['a truncated PEM', () => publicKeyPem('p256').pem.slice(0, 60)],
    ['a private key', () => publicKeyPem('p256').privatePem],
    ['an RSA public key', () => publicKeyPem('rsa').pem],
    ['a P-384 public key', () => publicKeyPem('p384').pem],
  ])('refuses %s as the verification key', async (_, makeKey) => {
    const response = await setIdp(t.appUuid, { idp_app_id: 'idp-x', idp_verification_key: makeKey() });
    expectApiError(response, 400, { type: 'invalid_request_error', param: 'idp_verification_key' });
    expect(await getApp(t, t.appUuid)).toMatchObject({ idp_configured: false, idp_app_id: null });
  });

  it('refuses missing fields and a malformed idp_app_id', async () => {
    const { pem } = publicKeyPem('p256');
    expectApiError(await setIdp(t.appUuid, { idp_verification_key: pem }), 400, { param: 'idp_app_id' });
    expectApiError(await setIdp(t.appUuid, { idp_app_id: 'a b', idp_verification_key: pem }), 400, { param: 'idp_app_id' });
    expectApiError(await setIdp(t.appUuid, { idp_app_id: 'ok' }), 400, { param: 'idp_verification_key' });
  });

  it('answers 409 when another app already uses the idp_app_id', async () => {
    const other = await createApp(t);
    expectStatus(await setIdp(t.appUuid, { idp_app_id: 'shared-id', idp_verification_key: publicKeyPem('p256').pem }), 200);
    const response = await setIdp(other.app_uuid, { idp_app_id: 'shared-id', idp_verification_key: publicKeyPem('p256').pem });
    expectApiError(response, 409, { type: 'conflict' });
    expect((await getApp(t, other.app_uuid)).idp_configured).toBe(false);
  });

  it('frees the idp_app_id when its app removes the configuration or is deleted', async () => {
    const a = await createApp(t);
    const b = await createApp(t);
    const c = await createApp(t);
    const pem = publicKeyPem('p256').pem;

    expectStatus(await setIdp(a.app_uuid, { idp_app_id: 'moving', idp_verification_key: pem }), 200);
    expectStatus(await t.call('DELETE', appPath(a.app_uuid, 'idp')), 200);
    expectStatus(await setIdp(b.app_uuid, { idp_app_id: 'moving', idp_verification_key: pem }), 200);

    expectStatus(await t.call('DELETE', appPath(b.app_uuid)), 200);
    expectStatus(await setIdp(c.app_uuid, { idp_app_id: 'moving', idp_verification_key: pem }), 200);
  });

  it('removes the configuration, and answers 404 when there is none', async () => {
    expectApiError(await t.call('DELETE', appPath(t.appUuid, 'idp')), 404, { type: 'not_found' });
    await setIdp(t.appUuid, { idp_app_id: 'to-remove', idp_verification_key: publicKeyPem('p256').pem });

    const response = await t.call('DELETE', appPath(t.appUuid, 'idp'));
    expectStatus(response, 200);
    expect(response.body).toEqual({ id: t.appUuid, object: 'idp_config', deleted: true });
    expect(await getApp(t, t.appUuid)).toMatchObject({ idp_configured: false, idp_app_id: null });
    expectApiError(await t.call('DELETE', appPath(t.appUuid, 'idp')), 404);
  });
});

describe('developer apps users', () => {
  const t = useTestServer();
  const topUp = (appUuid: string, address: string, credits: unknown) =>
    t.call('POST', appPath(appUuid, 'users', address, 'top-up'), { body: { credits } });
  const setLimit = (appUuid: string, address: string, credits: unknown) =>
    t.call('PATCH', appPath(appUuid, 'users', address), { body: { credits } });
  const balanceOf = async (appUuid: string): Promise<number> => (await getApp(t, appUuid)).balance_credits;

  it('creates an unknown user on top-up, in lower case, with the credits moved from the app', async () => {
    const address = randomAddress();
    expect(await balanceOf(t.appUuid)).toBe(100);

    const response = await topUp(t.appUuid, address, 12.34);
    expectStatus(response, 200);
    expect(response.body).toEqual({
      address: address.toLowerCase(),
      credits: 12.34,
      credit_limit: null,
      spent_credits: 0,
      budget_credits: null,
      budget_period: null,
      budget_source: null,
      budget_spent_credits: null,
      budget_resets_at: null,
      created_at: START,
    });
    expect(await balanceOf(t.appUuid)).toBe(87.66);

    const fetched = await t.call('GET', appPath(t.appUuid, 'users', address.toLowerCase()));
    expectStatus(fetched, 200);
    expect(fetched.body).toEqual(response.body);
  });

  it('adds to an existing user, whatever the case of the address', async () => {
    const address = randomAddress();
    await topUp(t.appUuid, address, 10);
    const response = await topUp(t.appUuid, address.toLowerCase(), 0.5);
    expectStatus(response, 200);
    expect(response.body.credits).toBe(10.5);
    expect(await balanceOf(t.appUuid)).toBe(89.5);
    expect((await t.call('GET', appPath(t.appUuid, 'users'))).body.total).toBe(1);
  });

  it('keeps six decimals exactly', async () => {
    const address = randomAddress();
    expect((await topUp(t.appUuid, address, 0.000001)).body.credits).toBe(0.000001);
    expect(await balanceOf(t.appUuid)).toBe(99.999999);
  });

  it('refuses a top-up beyond the app balance with 402 and changes nothing', async () => {
    const address = randomAddress();
    const response = await topUp(t.appUuid, address, 100.01);
    expectApiError(response, 402, { type: 'insufficient_credits', code: 'insufficient_credits' });
    expect(await balanceOf(t.appUuid)).toBe(100);
    // The user the top-up would have created does not exist either.
    expectApiError(await t.call('GET', appPath(t.appUuid, 'users', address)), 404);
  });

  it('allows a top-up of exactly the whole balance', async () => {
    expectStatus(await topUp(t.appUuid, randomAddress(), 100), 200);
    expect(await balanceOf(t.appUuid)).toBe(0);
    expectApiError(await topUp(t.appUuid, randomAddress(), 0.01), 402);
  });

  it('grants default_user_credits from the app balance to a new user of a standard app', async () => {
    const app = await createOwnerApp(t, { default_user_credits: 5, balanceCredits: 20 });
    const address = randomAddress();

    const response = await topUp(app.appUuid, address, 1);
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ credits: 6, credit_limit: null });
    expect(await balanceOf(app.appUuid)).toBe(14);

    // Only once: a second top-up adds just its own amount.
    expect((await topUp(app.appUuid, address, 1)).body.credits).toBe(7);
    expect(await balanceOf(app.appUuid)).toBe(13);
  });

  it('refuses a new user of a standard app when the balance cannot cover the default grant', async () => {
    const app = await createOwnerApp(t, { default_user_credits: 5, balanceCredits: 3 });
    const address = randomAddress();
    expectApiError(await topUp(app.appUuid, address, 1), 402, { type: 'insufficient_credits' });
    expect(await balanceOf(app.appUuid)).toBe(3);
    expectApiError(await t.call('GET', appPath(app.appUuid, 'users', address)), 404);
  });

  it('makes default_user_credits the credit limit of a new user of a pooled_api app', async () => {
    const app = await createOwnerApp(t, { app_type: 'pooled_api', default_user_credits: 7, balanceCredits: 20 });
    const address = randomAddress();

    const response = await topUp(app.appUuid, address, 2);
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ credits: 2, credit_limit: 7 });
    expect(await balanceOf(app.appUuid)).toBe(18);
  });

  it('sets the credit limit with users update, and clears it with null', async () => {
    const address = randomAddress();
    const set = await setLimit(t.appUuid, address, 25);
    expectStatus(set, 200);
    expect(set.body).toMatchObject({ address: address.toLowerCase(), credit_limit: 25, credits: 0 });

    const changed = await setLimit(t.appUuid, address, 2.5);
    expect(changed.body.credit_limit).toBe(2.5);

    const cleared = await setLimit(t.appUuid, address, null);
    expectStatus(cleared, 200);
    expect(cleared.body.credit_limit).toBeNull();
    expect((await t.call('GET', appPath(t.appUuid, 'users', address))).body.credit_limit).toBeNull();
    // A limit moves no money.
    expect(await balanceOf(t.appUuid)).toBe(100);
  });

  it('overrides the pooled default limit with users update', async () => {
    const app = await createOwnerApp(t, { app_type: 'pooled_api', default_user_credits: 7 });
    const address = randomAddress();
    expect((await setLimit(app.appUuid, address, 3)).body.credit_limit).toBe(3);
    expect((await setLimit(app.appUuid, address, null)).body.credit_limit).toBeNull();
  });

  it('refuses a bad credit limit', async () => {
    const address = randomAddress();
    expectApiError(await setLimit(t.appUuid, address, -1), 400, { param: 'credits' });
    expectApiError(await setLimit(t.appUuid, address, '5'), 400, { param: 'credits' });
    expectApiError(await t.call('PATCH', appPath(t.appUuid, 'users', address), { body: {} }), 400, {
      code: 'missing_field',
      param: 'credits',
    });
  });

  it('answers 404 for an unknown user and 400 for an invalid address', async () => {
    expectApiError(await t.call('GET', appPath(t.appUuid, 'users', randomAddress())), 404, { type: 'not_found' });
    for (const address of ['0x123', 'abc', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(41)}`]) {
      expectApiError(await t.call('GET', appPath(t.appUuid, 'users', address)), 400, { param: 'address' });
      expectApiError(await topUp(t.appUuid, address, 1), 400, { param: 'address' });
    }
  });

  it('keeps users per app', async () => {
    const other = await createOwnerApp(t, { balanceCredits: 10 });
    const address = randomAddress();
    await topUp(t.appUuid, address, 1);
    expectApiError(await t.call('GET', appPath(other.appUuid, 'users', address)), 404);
    expect((await t.call('GET', appPath(other.appUuid, 'users'))).body.total).toBe(0);
  });

  it('lists users with paging and a total', async () => {
    const addresses: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1_000);
      const address = randomAddress();
      addresses.push(address.toLowerCase());
      await topUp(t.appUuid, address, 1);
    }
    const first = await t.call('GET', `${appPath(t.appUuid, 'users')}?limit=2`);
    expectStatus(first, 200);
    expect(first.body).toMatchObject({ limit: 2, offset: 0, total: 3 });
    const second = await t.call('GET', `${appPath(t.appUuid, 'users')}?limit=2&offset=2`);
    const seen = [...first.body.data, ...second.body.data].map((u: any) => u.address);
    expect(seen.sort()).toEqual([...addresses].sort());
  });
});
