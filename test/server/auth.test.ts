import { describe, expect, it } from 'vitest';
import { hashSecret, keyPrefix } from '../../server/auth/api-keys.js';
import {
  addDeveloper,
  API,
  appPath,
  createKey,
  expectApiError,
  expectStatus,
  randomAddress,
  unknownApiKey,
  useTestServer,
} from '../helpers/api.js';

const APPS = `${API}/developer/apps`;

describe('authentication', () => {
  const t = useTestServer();

  it('refuses a request without credentials with 401', async () => {
    const response = await t.call('GET', APPS, { key: null });
    expectApiError(response, 401, { type: 'authentication_error', code: 'missing_credentials' });
  });

  it.each(['hello', 'svc_live_short', `svc_prod_${'A'.repeat(40)}`, `svc_live_${'A'.repeat(39)}!`])(
    'refuses a malformed key (%s) with 401',
    async (key) => {
      expectApiError(await t.call('GET', APPS, { key }), 401, { type: 'authentication_error', code: 'invalid_api_key' });
    },
  );

  it('refuses a well-formed key that was never issued with 401', async () => {
    for (const key of [unknownApiKey('live'), unknownApiKey('test')]) {
      expectApiError(await t.call('GET', APPS, { key }), 401, { type: 'authentication_error', code: 'invalid_api_key' });
    }
  });

  it('refuses a key that shares a real key’s public prefix but not its secret', async () => {
    const last = t.liveKey.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${t.liveKey.slice(0, -1)}${last}`;
    expectApiError(await t.call('GET', APPS, { key: forged }), 401, { code: 'invalid_api_key' });
  });

  it('tells apart keys that share a public prefix', async () => {
    // A second key with the live key's prefix: lookup by prefix finds both, the hash decides.
    const twin = `${t.liveKey.slice(0, 13)}${'Z'.repeat(36)}`;
    await t.server.store.apiKeys.create({
      keyId: 'key_twin0000000000000000',
      appUuid: t.appUuid,
      name: 'twin',
      isTest: false,
      role: 'read_only',
      prefix: keyPrefix(twin),
      secretHash: hashSecret(twin),
      at: '2026-03-01T12:00:00.000Z',
    });
    expectStatus(await t.call('GET', APPS, { key: twin }), 200);
    expectStatus(await t.call('GET', APPS, { key: t.liveKey }), 200);
  });

  it('accepts the key as X-API-KEY', async () => {
    expectStatus(await t.call('GET', APPS, { key: t.liveKey }), 200);
    expectStatus(await t.call('GET', `${API}/credits/balance`, { key: t.testKey }), 200);
  });

  it('accepts the key as Authorization: Bearer, like X-API-KEY', async () => {
    const viaHeader = await t.call('GET', appPath(t.appUuid), { key: t.liveKey });
    const viaBearer = await t.call('GET', appPath(t.appUuid), { key: null, headers: { authorization: `Bearer ${t.liveKey}` } });
    expectStatus(viaBearer, 200);
    expect(viaBearer.body).toEqual(viaHeader.body);
  });

  it('refuses an unknown key given as a bearer token', async () => {
    const response = await t.call('GET', APPS, { key: null, headers: { authorization: `Bearer ${unknownApiKey()}` } });
    expectApiError(response, 401, { code: 'invalid_api_key' });
  });

  it('refuses an Authorization header that is not Bearer', async () => {
    const response = await t.call('GET', APPS, { key: null, headers: { authorization: `Basic ${t.liveKey}` } });
    expectApiError(response, 401, { type: 'authentication_error' });
  });

  it('refuses an identity token on developer operations with 403 (they need an API key)', async () => {
    const response = await t.call('GET', APPS, { key: null, headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig' } });
    expectApiError(response, 403, { type: 'permission_denied' });
  });

  it('needs no credentials for the health check', async () => {
    const response = await t.call('GET', '/health', { key: null });
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ status: 'ok', version: expect.any(String), time: '2026-03-01T12:00:00.000Z' });
  });

  it('needs no credentials for the OpenAPI document, and ignores bad ones there', async () => {
    expectStatus(await t.call('GET', `${API}/docs/swagger.json`, { key: null }), 200);
    expectStatus(await t.call('GET', `${API}/docs/swagger.json`, { key: 'garbage' }), 200);
  });
});

describe('API key lifecycle', () => {
  const t = useTestServer();

  it('stops accepting a deleted key on the very next request', async () => {
    const key = await createKey(t, t.appUuid, { name: 'short-lived', role: 'read_only' });
    expectStatus(await t.call('GET', APPS, { key: key.secret }), 200);

    expectStatus(await t.call('DELETE', appPath(t.appUuid, 'api-keys', key.key_id)), 200);

    expectApiError(await t.call('GET', APPS, { key: key.secret }), 401, { code: 'invalid_api_key' });
    // The other keys of the app keep working.
    expectStatus(await t.call('GET', APPS, { key: t.liveKey }), 200);
  });

  it('lets a key delete itself, and then refuses it', async () => {
    const key = await createKey(t, t.appUuid, { role: 'admin' });
    expectStatus(await t.call('DELETE', appPath(t.appUuid, 'api-keys', key.key_id), { key: key.secret }), 200);
    expectApiError(await t.call('GET', APPS, { key: key.secret }), 401);
  });

  it('shows the secret only in the create answer', async () => {
    const created = await createKey(t, t.appUuid, { name: 'shown once' });
    expect(created.secret).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    expect(created.secret.startsWith(created.prefix.replace(/…$/, ''))).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.secret.length);

    const list = await t.call('GET', appPath(t.appUuid, 'api-keys'));
    expectStatus(list, 200);
    const listed = list.body.data.find((k: any) => k.key_id === created.key_id);
    expect(listed).toEqual({
      key_id: created.key_id,
      name: 'shown once',
      is_test: false,
      role: 'inference',
      prefix: created.prefix,
      created_at: created.created_at,
      last_used_at: null,
      budget_credits: null,
      budget_period: null,
      budget_spent_credits: null,
      budget_resets_at: null,
      expires_at: null,
    });
    for (const item of list.body.data) expect(item).not.toHaveProperty('secret');
    expect(JSON.stringify(list.body)).not.toContain(created.secret.slice(13));
  });

  it('gives live keys svc_live_ and test keys svc_test_', async () => {
    const live = await createKey(t, t.appUuid, { is_test: false });
    const test = await createKey(t, t.appUuid, { is_test: true });
    expect(live).toMatchObject({ is_test: false, secret: expect.stringMatching(/^svc_live_/) });
    expect(test).toMatchObject({ is_test: true, secret: expect.stringMatching(/^svc_test_/) });
    expect(live.prefix).toMatch(/^svc_live_/);
    expect(test.prefix).toMatch(/^svc_test_/);
    expect(t.liveKey).toMatch(/^svc_live_/);
    expect(t.testKey).toMatch(/^svc_test_/);
  });

  it('records when a key was last used, by the server clock', async () => {
    const key = await createKey(t, t.appUuid, { role: 'read_only' });
    expect(key.last_used_at).toBeNull();
    const lastUsed = async () => {
      const list = await t.call('GET', `${appPath(t.appUuid, 'api-keys')}?limit=100`);
      return list.body.data.find((k: any) => k.key_id === key.key_id).last_used_at;
    };

    t.clock.advance(5_000);
    const firstUse = t.clock.now().toISOString();
    expectStatus(await t.call('GET', APPS, { key: key.secret }), 200);
    expect(await lastUsed()).toBe(firstUse);

    t.clock.advance(10 * 60_000);
    const laterUse = t.clock.now().toISOString();
    expectStatus(await t.call('GET', APPS, { key: key.secret }), 200);
    expect(await lastUsed()).toBe(laterUse);
  });

  it('records last use even when the request then fails', async () => {
    const key = await createKey(t, t.appUuid, { role: 'read_only' });
    t.clock.advance(1_000);
    const at = t.clock.now().toISOString();
    expectApiError(await t.call('GET', appPath('00000000-0000-4000-8000-000000000000'), { key: key.secret }), 404);
    const list = await t.call('GET', appPath(t.appUuid, 'api-keys'));
    expect(list.body.data.find((k: any) => k.key_id === key.key_id).last_used_at).toBe(at);
  });
});

describe('another developer', () => {
  const t = useTestServer();

  it('cannot see or touch my app: every such request is a 404, never a 403', async () => {
    const b = await addDeveloper(t);
    const mine = appPath(t.appUuid);
    const attempts = [
      await t.call('GET', mine, { key: b.key }),
      await t.call('PATCH', mine, { key: b.key, body: { name: 'stolen' } }),
      await t.call('DELETE', mine, { key: b.key }),
      await t.call('GET', appPath(t.appUuid, 'api-keys'), { key: b.key }),
      await t.call('POST', appPath(t.appUuid, 'api-keys'), { key: b.key, body: {} }),
      await t.call('GET', appPath(t.appUuid, 'users'), { key: b.key }),
      await t.call('POST', appPath(t.appUuid, 'users', randomAddress(), 'top-up'), { key: b.key, body: { credits: 1 } }),
      await t.call('DELETE', appPath(t.appUuid, 'idp'), { key: b.key }),
    ];
    for (const response of attempts) expectApiError(response, 404, { type: 'not_found', code: 'app_not_found' });

    // The same answer as for an app that does not exist at all.
    const none = await t.call('GET', appPath('00000000-0000-4000-8000-000000000000'), { key: b.key });
    expectApiError(none, 404, { code: 'app_not_found' });

    // And nothing changed.
    const app = await t.call('GET', mine);
    expectStatus(app, 200);
    expect(app.body).toMatchObject({ name: 'Default app', balance_credits: 100 });
    expect((await t.call('GET', appPath(t.appUuid, 'api-keys'))).body.total).toBe(2);
    expect((await t.call('GET', appPath(t.appUuid, 'users'))).body.total).toBe(0);
  });

  it('cannot delete my key through their own app', async () => {
    const b = await addDeveloper(t);
    const key = await createKey(t, t.appUuid, { role: 'read_only' });
    const response = await t.call('DELETE', appPath(b.appUuid, 'api-keys', key.key_id), { key: b.key });
    expectApiError(response, 404);
    expectStatus(await t.call('GET', APPS, { key: key.secret }), 200);
  });

  it('lists only their own apps, and I only mine', async () => {
    const b = await addDeveloper(t);
    const theirs = await t.call('GET', APPS, { key: b.key });
    expect(theirs.body.total).toBe(1);
    expect(theirs.body.data.map((a: any) => a.app_uuid)).toEqual([b.appUuid]);
    const mine = await t.call('GET', APPS);
    expect(mine.body.data.map((a: any) => a.app_uuid)).toEqual([t.appUuid]);
    expectApiError(await t.call('GET', appPath(b.appUuid)), 404);
  });
});
