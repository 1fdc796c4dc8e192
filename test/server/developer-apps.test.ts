import { describe, expect, it } from 'vitest';
import { API, appPath, createApp, createKey, expectApiError, expectStatus, getApp, useTestServer } from '../helpers/api.js';

const APPS = `${API}/developer/apps`;
const START = '2026-03-01T12:00:00.000Z';

describe('developer apps create', () => {
  const t = useTestServer();

  it('creates a standard app with the defaults, answering 201', async () => {
    const response = await t.call('POST', APPS, { body: { name: 'Shop' } });
    expectStatus(response, 201);
    expect(response.body).toEqual({
      app_uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'Shop',
      app_type: 'standard',
      default_user_credits: 0,
      allowed_origins: [],
      balance_credits: 0,
      held_credits: 0,
      idp_configured: false,
      idp_app_id: null,
      rate_limit_rpm: null,
      rate_limit_tpm: null,
      user_claims: true,
      user_budget_credits: null,
      user_budget_period: null,
      created_at: START,
      updated_at: START,
    });
    expect(await getApp(t, response.body.app_uuid)).toEqual(response.body);
  });

  it('creates a pooled_api app with its fields', async () => {
    const app = await createApp(t, {
      name: 'Pool',
      app_type: 'pooled_api',
      default_user_credits: 2.5,
      allowed_origins: ['https://a.example', 'http://localhost:3000'],
    });
    expect(app).toMatchObject({
      app_type: 'pooled_api',
      default_user_credits: 2.5,
      allowed_origins: ['https://a.example', 'http://localhost:3000'],
    });
    expect((await getApp(t, app.app_uuid)).app_type).toBe('pooled_api');
  });

  it('trims the name and refuses a blank or overlong one', async () => {
    expect((await createApp(t, { name: '  Spaced  ' })).name).toBe('Spaced');
    expectApiError(await t.call('POST', APPS, { body: { name: '   ' } }), 400, { param: 'name' });
    expectApiError(await t.call('POST', APPS, { body: { name: 'x'.repeat(101) } }), 400, { param: 'name' });
  });

  it('gives each app its own uuid', async () => {
    const a = await createApp(t);
    const b = await createApp(t);
    expect(a.app_uuid).not.toBe(b.app_uuid);
  });

  it.each([
    'https://example.com/',
    'https://example.com/path',
    'example.com',
    'ftp://example.com',
    'https://example.com?x=1',
  ])('refuses the origin %s', async (origin) => {
    const response = await t.call('POST', APPS, { body: { name: 'x', allowed_origins: ['https://ok.example', origin] } });
    expectApiError(response, 400, { param: 'allowed_origins[1]' });
  });

  it('keeps each origin once', async () => {
    const app = await createApp(t, { allowed_origins: ['https://a.example', 'https://a.example'] });
    expect(app.allowed_origins).toEqual(['https://a.example']);
  });
});

describe('developer apps list', () => {
  const t = useTestServer();

  async function createApps(count: number) {
    const uuids: string[] = [];
    for (let i = 0; i < count; i++) {
      t.clock.advance(1_000);
      uuids.push((await createApp(t, { name: `App ${i}` })).app_uuid);
    }
    return uuids;
  }

  it('answers {data, limit, offset, total} with the specification defaults', async () => {
    const response = await t.call('GET', APPS);
    expectStatus(response, 200);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'limit', 'offset', 'total']);
    expect(response.body).toMatchObject({ limit: 50, offset: 0, total: 1 });
    expect(response.body.data.map((a: any) => a.app_uuid)).toEqual([t.appUuid]);
  });

  it('pages through every app exactly once, newest first', async () => {
    const created = await createApps(4);
    const all = [t.appUuid, ...created].reverse();

    const seen: string[] = [];
    for (const offset of [0, 2, 4]) {
      const page = await t.call('GET', `${APPS}?limit=2&offset=${offset}`);
      expectStatus(page, 200);
      expect(page.body).toMatchObject({ limit: 2, offset, total: 5 });
      expect(page.body.data.length).toBe(offset === 4 ? 1 : 2);
      seen.push(...page.body.data.map((a: any) => a.app_uuid));
    }
    expect(seen).toEqual(all);

    const past = await t.call('GET', `${APPS}?offset=10`);
    expect(past.body).toMatchObject({ data: [], total: 5, offset: 10 });
  });

  it('leaves deleted apps out of the list and the total', async () => {
    const [first] = await createApps(2);
    expectStatus(await t.call('DELETE', appPath(first as string)), 200);
    const list = await t.call('GET', APPS);
    expect(list.body.total).toBe(2);
    expect(list.body.data.map((a: any) => a.app_uuid)).not.toContain(first);
  });
});

describe('developer apps get, update, delete', () => {
  const t = useTestServer();

  it('answers 404 for an app that does not exist', async () => {
    expectApiError(await t.call('GET', appPath('00000000-0000-4000-8000-000000000000')), 404, {
      type: 'not_found',
      code: 'app_not_found',
    });
  });

  it('finds an app by its UUID in upper case too (UUIDs are case-insensitive)', async () => {
    const app = await createApp(t);
    const upper = app.app_uuid.toUpperCase();
    const response = await t.call('GET', appPath(upper));
    expectStatus(response, 200);
    expect(response.body.app_uuid).toBe(app.app_uuid);
    expectStatus(await t.call('GET', appPath(upper, 'users')), 200);
    // The top-up reaches the app (an unfunded one: 402), rather than missing it (404).
    const topUp = await t.call('POST', appPath(upper, 'users', `0x${'ab'.repeat(20)}`, 'top-up'), { body: { credits: 1 } });
    expectApiError(topUp, 402, { type: 'insufficient_credits' });
  });

  it('renames an app and moves updated_at, not created_at', async () => {
    const app = await createApp(t, { name: 'Old' });
    t.clock.advance(60_000);
    const response = await t.call('PATCH', appPath(app.app_uuid), { body: { name: 'New' } });
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ name: 'New', created_at: START, updated_at: '2026-03-01T12:01:00.000Z' });
    expect(await getApp(t, app.app_uuid)).toEqual(response.body);
  });

  it('changes default_user_credits and leaves the other fields', async () => {
    const app = await createApp(t, { name: 'Keep', allowed_origins: ['https://a.example'] });
    const response = await t.call('PATCH', appPath(app.app_uuid), { body: { default_user_credits: 7.25 } });
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ name: 'Keep', default_user_credits: 7.25, allowed_origins: ['https://a.example'] });
  });

  it('applies the allowed_origins rule: omitted leaves, null leaves, [] clears, a list sets', async () => {
    const app = await createApp(t, { allowed_origins: ['https://a.example'] });
    const patch = async (body: Record<string, unknown>) => {
      const response = await t.call('PATCH', appPath(app.app_uuid), { body });
      expectStatus(response, 200);
      return response.body.allowed_origins;
    };

    expect(await patch({ name: 'renamed' })).toEqual(['https://a.example']);
    expect(await patch({ allowed_origins: null })).toEqual(['https://a.example']);
    expect(await patch({ allowed_origins: ['https://b.example', 'https://c.example:8443'] })).toEqual([
      'https://b.example',
      'https://c.example:8443',
    ]);
    expect(await patch({})).toEqual(['https://b.example', 'https://c.example:8443']);
    expect(await patch({ allowed_origins: [] })).toEqual([]);
    expect((await getApp(t, app.app_uuid)).allowed_origins).toEqual([]);
  });

  it('refuses a bad origin on update and changes nothing', async () => {
    const app = await createApp(t, { allowed_origins: ['https://a.example'] });
    const response = await t.call('PATCH', appPath(app.app_uuid), { body: { allowed_origins: ['https://b.example/x'] } });
    expectApiError(response, 400, { param: 'allowed_origins[0]' });
    expect((await getApp(t, app.app_uuid)).allowed_origins).toEqual(['https://a.example']);
  });

  it('refuses fields that cannot be updated', async () => {
    const app = await createApp(t);
    for (const body of [{ app_type: 'pooled_api' }, { balance_credits: 1000 }, { app_uuid: t.appUuid }]) {
      const response = await t.call('PATCH', appPath(app.app_uuid), { body });
      expectApiError(response, 400, { code: 'unknown_field', param: Object.keys(body)[0] });
    }
    expect((await getApp(t, app.app_uuid)).app_type).toBe('standard');
  });

  it('answers 404 when updating an app that does not exist', async () => {
    const response = await t.call('PATCH', appPath('00000000-0000-4000-8000-000000000000'), { body: { name: 'x' } });
    expectApiError(response, 404);
  });

  it('deletes an app: then it is gone and its keys stop working', async () => {
    const app = await createApp(t, { name: 'Doomed' });
    const key = await createKey(t, app.app_uuid, { role: 'read_only' });
    expectStatus(await t.call('GET', APPS, { key: key.secret }), 200);

    const deleted = await t.call('DELETE', appPath(app.app_uuid));
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ id: app.app_uuid, object: 'app', deleted: true, balance_moved: null });

    expectApiError(await t.call('GET', appPath(app.app_uuid)), 404);
    expectApiError(await t.call('PATCH', appPath(app.app_uuid), { body: { name: 'back' } }), 404);
    expectApiError(await t.call('GET', appPath(app.app_uuid, 'api-keys')), 404);
    expectApiError(await t.call('DELETE', appPath(app.app_uuid)), 404);
    expectApiError(await t.call('GET', APPS, { key: key.secret }), 401, { code: 'invalid_api_key' });
  });

  it('lets the caller delete the app its own key belongs to', async () => {
    // Its starting credits go back to the operator: it is the developer's last app.
    expectStatus(await t.call('DELETE', appPath(t.appUuid), { body: { force: true } }), 200);
    expectApiError(await t.call('GET', APPS), 401);
    expectApiError(await t.call('GET', APPS, { key: t.testKey }), 401);
  });
});
