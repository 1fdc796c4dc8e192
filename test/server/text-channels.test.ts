import { describe, expect, it } from 'vitest';
import type { Principal } from '../../server/auth/principal.js';
import { API, addDeveloper, createOwnerApp, expectApiError, expectStatus, ownerId, randomAddress, useTestServer } from '../helpers/api.js';
import type { TestServer } from '../helpers/server.js';

const PHONE = '+14155550123';
const PAGE_ID = '1234567890123456';

const text = (channel: string, action: string, query = '') => `${API}/text/${channel}/${action}${query}`;
const lookupPath = (channel: string, identifier: string) => text(channel, 'lookup', `?identifier=${encodeURIComponent(identifier)}`);

function register(t: TestServer, channel: string, body: Record<string, unknown>, key?: string) {
  return t.call('POST', text(channel, 'register'), { body, key });
}

/** A second app of the owner, with a live key: another caller. */
async function otherAppKey(t: TestServer) {
  const app = await createOwnerApp(t, { name: 'Other app' });
  const key = await t.server.services.apiKeys.create(app.appUuid, { name: 'other', is_test: false });
  return { appUuid: app.appUuid, key: key.secret };
}

describe('text register', () => {
  const t = useTestServer();

  it('registers an E.164 number with a preferred model, and status shows it', async () => {
    const response = await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' });
    expectStatus(response, 200);
    expect(response.body).toEqual({ channel: 'sms', identifier: PHONE, preferred_model: 'local/echo', registered: true });
    const status = await t.call('GET', text('sms', 'status'));
    expectStatus(status, 200);
    expect(status.body).toEqual(response.body);
  });

  it('accepts the shortest and longest E.164 numbers', async () => {
    expectStatus(await register(t, 'sms', { identifier: '+12345678' }), 200);
    expectStatus(await register(t, 'sms', { identifier: '+123456789012345' }), 200);
  });

  it.each([
    ['no plus', '14155550123'],
    ['a leading zero', '+04155550123'],
    ['too short', '+1234567'],
    ['too long', '+1234567890123456'],
    ['spaces', '+1 415 555 0123'],
    ['letters', '+1415555CALL'],
  ])('refuses an sms identifier with %s (400 identifier)', async (_what, identifier) => {
    expectApiError(await register(t, 'sms', { identifier }), 400, { type: 'invalid_request_error', param: 'identifier' });
  });

  it('registers a messenger page-scoped id (5 to 32 digits) and refuses others', async () => {
    const response = await register(t, 'messenger', { identifier: PAGE_ID });
    expectStatus(response, 200);
    expect(response.body).toEqual({ channel: 'messenger', identifier: PAGE_ID, preferred_model: null, registered: true });
    expectStatus(await register(t, 'messenger', { identifier: '12345' }), 200);
    for (const identifier of ['1234', '1'.repeat(33), 'page-123456', PHONE]) {
      expectApiError(await register(t, 'messenger', { identifier }), 400, { param: 'identifier' });
    }
  });

  it('refuses a preferred model the server does not serve (404 preferred_model)', async () => {
    expectApiError(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/nope' }), 404, {
      code: 'model_not_found',
      param: 'preferred_model',
    });
    expectApiError(await register(t, 'sms', { identifier: PHONE, preferred_model: 'nowhere/model' }), 404, {
      param: 'preferred_model',
    });
    expect((await t.call('GET', text('sms', 'status'))).body.registered).toBe(false);
  });

  it('refuses an embedding-only model as preferred model (400 preferred_model)', async () => {
    expectApiError(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/embed' }), 400, {
      param: 'preferred_model',
    });
  });

  it('refuses an unknown channel (400 channel) on every text operation', async () => {
    expectApiError(await register(t, 'fax', { identifier: PHONE }), 400, { param: 'channel' });
    expectApiError(await t.call('GET', lookupPath('fax', PHONE)), 400, { param: 'channel' });
    expectApiError(await t.call('GET', text('fax', 'status')), 400, { param: 'channel' });
    expectApiError(await t.call('DELETE', text('fax', 'unregister')), 400, { param: 'channel' });
  });

  it('registering again replaces the caller’s registration (identifier and model)', async () => {
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }), 200);
    const replaced = await register(t, 'sms', { identifier: '+447700900123' });
    expectStatus(replaced, 200);
    expect(replaced.body).toEqual({ channel: 'sms', identifier: '+447700900123', preferred_model: null, registered: true });
    // The old number is free again.
    expectApiError(await t.call('GET', lookupPath('sms', PHONE)), 404);
    const other = await otherAppKey(t);
    expectStatus(await register(t, 'sms', { identifier: PHONE }, other.key), 200);
  });

  it('keeps one registration per channel: sms and messenger are independent', async () => {
    expectStatus(await register(t, 'sms', { identifier: PHONE }), 200);
    expectStatus(await register(t, 'messenger', { identifier: PAGE_ID }), 200);
    expect((await t.call('GET', text('sms', 'status'))).body.identifier).toBe(PHONE);
    expect((await t.call('GET', text('messenger', 'status'))).body.identifier).toBe(PAGE_ID);
  });

  it('keeps apps apart: two apps may each hold the same identifier, and neither sees the other', async () => {
    const b = await addDeveloper(t);
    const other = await otherAppKey(t);
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }, b.key), 200);
    expectStatus(await register(t, 'sms', { identifier: PHONE }), 200);
    expectStatus(await register(t, 'sms', { identifier: PHONE }, other.key), 200);
    expect((await t.call('GET', text('sms', 'status'))).body).toMatchObject({ identifier: PHONE, preferred_model: null });
    expect((await t.call('GET', text('sms', 'status'), { key: b.key })).body).toMatchObject({ identifier: PHONE, preferred_model: 'local/echo' });
    // Unregistering in one app leaves the others' registrations alone.
    expectStatus(await t.call('DELETE', text('sms', 'unregister'), { key: b.key }), 200);
    expect((await t.call('GET', lookupPath('sms', PHONE))).body).toMatchObject({ identifier: PHONE, preferred_model: null });
    expect((await t.call('GET', lookupPath('sms', PHONE), { key: other.key })).body.registered).toBe(true);
    expectApiError(await t.call('GET', lookupPath('sms', PHONE), { key: b.key }), 404);
  });

  it('treats all keys of an app in one mode as one caller', async () => {
    const otherLiveKey = (await t.server.services.apiKeys.create(t.appUuid, { name: 'second', is_test: false })).secret;
    expectStatus(await register(t, 'sms', { identifier: PHONE }), 200);
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }, otherLiveKey), 200);
    expect((await t.call('GET', text('sms', 'status'))).body.preferred_model).toBe('local/echo');
  });


  it('refuses unknown body fields and a missing identifier', async () => {
    expectApiError(await register(t, 'sms', { identifier: PHONE, model: 'local/echo' }), 400, { param: 'model' });
    expectApiError(await register(t, 'sms', {}), 400, { param: 'identifier' });
  });
});

describe('text lookup', () => {
  const t = useTestServer();

  it('answers the registration held in the caller’s app', async () => {
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }), 200);
    const inferenceKey = (await t.server.services.apiKeys.create(t.appUuid, { name: 'backend', is_test: false })).secret;
    const response = await t.call('GET', lookupPath('sms', PHONE), { key: inferenceKey });
    expectStatus(response, 200);
    expect(response.body).toEqual({ channel: 'sms', identifier: PHONE, preferred_model: 'local/echo', registered: true });
  });

  it('answers 404 when nobody holds the identifier, and per channel', async () => {
    expectApiError(await t.call('GET', lookupPath('sms', PHONE)), 404, { type: 'not_found', param: 'identifier' });
    expectStatus(await register(t, 'messenger', { identifier: PAGE_ID }), 200);
    expectApiError(await t.call('GET', lookupPath('sms', PAGE_ID)), 400, { param: 'identifier' });
    expectStatus(await t.call('GET', lookupPath('messenger', PAGE_ID)), 200);
  });

  it('answers 404, not the registration, when another app holds it', async () => {
    const b = await addDeveloper(t);
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }, b.key), 200);
    const response = await t.call('GET', lookupPath('sms', PHONE));
    expectApiError(response, 404);
    expect(JSON.stringify(response.body)).not.toContain('local/echo');
  });

  it('validates the identifier and requires it', async () => {
    expectApiError(await t.call('GET', lookupPath('sms', '555-0123')), 400, { param: 'identifier' });
    expectApiError(await t.call('GET', text('sms', 'lookup')), 400, { param: 'identifier' });
  });
});

describe('text status and unregister', () => {
  const t = useTestServer();

  it('status says registered: false when the caller has nothing', async () => {
    const response = await t.call('GET', text('messenger', 'status'));
    expectStatus(response, 200);
    expect(response.body).toEqual({ channel: 'messenger', identifier: null, preferred_model: null, registered: false });
  });

  it('unregister removes the registration and answers it with registered: false', async () => {
    expectStatus(await register(t, 'sms', { identifier: PHONE, preferred_model: 'local/echo' }), 200);
    const response = await t.call('DELETE', text('sms', 'unregister'));
    expectStatus(response, 200);
    expect(response.body).toEqual({ channel: 'sms', identifier: PHONE, preferred_model: 'local/echo', registered: false });
    expect((await t.call('GET', text('sms', 'status'))).body.registered).toBe(false);
    expectApiError(await t.call('GET', lookupPath('sms', PHONE)), 404);
  });

  it('unregister answers 404 when the caller has no registration', async () => {
    expectApiError(await t.call('DELETE', text('sms', 'unregister')), 404, { type: 'not_found' });
    const b = await addDeveloper(t);
    expectStatus(await register(t, 'sms', { identifier: PHONE }, b.key), 200);
    expectApiError(await t.call('DELETE', text('sms', 'unregister')), 404);
    expect((await t.call('GET', text('sms', 'status'), { key: b.key })).body.registered).toBe(true);
  });

  it('requires authentication', async () => {
    expectApiError(await t.call('GET', text('sms', 'status'), { key: null }), 401);
  });
});

describe('text registrations of app users (service level)', () => {
  const t = useTestServer();

  async function userOf(address: string): Promise<Principal> {
    const app = await t.server.store.apps.get(ownerId(t), t.appUuid);
    if (!app) throw new Error('no app');
    return { kind: 'user', developerId: ownerId(t), app, address: address.toLowerCase(), livemode: true };
  }

  it('makes each user of an app a caller of its own, distinct from the app', async () => {
    const alice = await userOf(randomAddress());
    const bob = await userOf(randomAddress());
    const service = t.server.services.text;
    await service.register(alice, 'sms', { identifier: PHONE });
    await expect(service.register(bob, 'sms', { identifier: PHONE })).rejects.toMatchObject({ status: 409 });
    await expect(service.status(bob, 'sms')).resolves.toMatchObject({ registered: false });
    // The app (its API keys) is another caller too, but it sees its users' registrations.
    expectApiError(await register(t, 'sms', { identifier: PHONE }), 409);
    expect((await t.call('GET', lookupPath('sms', PHONE))).body).toMatchObject({ identifier: PHONE, registered: true });
    await service.register(bob, 'sms', { identifier: '+447700900123' });
    await expect(service.unregister(alice, 'sms')).resolves.toMatchObject({ identifier: PHONE, registered: false });
    await expect(service.status(bob, 'sms')).resolves.toMatchObject({ identifier: '+447700900123' });
  });
});
