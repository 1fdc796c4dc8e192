import { operations } from '../../src/contract/operations/index.js';
import { handlers } from '../../server/handlers/index.js';
import { describe, expect, it } from 'vitest';
import { API, appPath, createOwnerApp, expectApiError, expectStatus, randomAddress, useTestServer } from '../helpers/api.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer } from '../helpers/server.js';

const APPS = `${API}/developer/apps`;
const MiB = 1024 * 1024;

describe('request bodies', () => {
  const t = useTestServer();

  it('refuses malformed JSON with 400 invalid_json', async () => {
    const response = await t.call('POST', APPS, { rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expectApiError(response, 400, { type: 'invalid_request_error', code: 'invalid_json', param: null });
  });

  it('refuses a body that is not JSON-typed with 415', async () => {
    const response = await t.call('POST', APPS, { rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
    expectApiError(response, 415, { code: 'unsupported_media_type' });
  });

  it('refuses a body without any content type with 415', async () => {
    const response = await rawRequest(t.url, 'POST', APPS, {
      headers: { 'x-api-key': t.liveKey },
      chunks: ['{"name":"x"}'],
    });
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('unsupported_media_type');
  });

  it('accepts a JSON content type with parameters', async () => {
    const response = await t.call('POST', APPS, {
      rawBody: '{"name":"x"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expectStatus(response, 201);
  });

  it('refuses a body over 1 MiB with 413 and creates nothing', async () => {
    const name = 'x'.repeat(MiB);
    const response = await t.call('POST', APPS, { body: { name } });
    expectApiError(response, 413, { code: 'request_too_large' });
    const list = await t.call('GET', APPS);
    expect(list.body.total).toBe(1);
  });

  it('refuses a body that is valid JSON but not an object', async () => {
    const response = await t.call('POST', APPS, { body: ['name'] });
    expectApiError(response, 400, { type: 'invalid_request_error' });
  });

  it('refuses a body on an operation that takes none', async () => {
    const response = await t.call('DELETE', appPath(t.appUuid, 'idp'), { body: { idp_app_id: 'x' } });
    expectApiError(response, 400, { code: 'unexpected_body' });
  });

  it('refuses a body on a GET', async () => {
    const body = '{"limit":5}';
    const response = await rawRequest(t.url, 'GET', APPS, {
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json', 'content-length': body.length },
      chunks: [body],
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'unexpected_body' });
  });

  it('tolerates an empty JSON object on an operation that takes no body', async () => {
    const app = await createOwnerApp(t);
    const response = await t.call('DELETE', appPath(app.appUuid), { body: {} });
    expectStatus(response, 200);
  });
});

describe('a server with a small body limit', () => {
  const t = useTestServer({ maxBodyBytes: 64 });

  /** `{"name":"…"}` padded to exactly `bytes` bytes. */
  const bodyOfSize = (bytes: number) => JSON.stringify({ name: 'n'.repeat(bytes - '{"name":""}'.length) });

  it('accepts a body of exactly the limit', async () => {
    const rawBody = bodyOfSize(64);
    expect(Buffer.byteLength(rawBody)).toBe(64);
    const response = await t.call('POST', APPS, { rawBody, headers: { 'content-type': 'application/json' } });
    expectStatus(response, 201);
  });

  it('refuses a body one byte over the limit with 413', async () => {
    const response = await t.call('POST', APPS, { rawBody: bodyOfSize(65), headers: { 'content-type': 'application/json' } });
    expectApiError(response, 413, { code: 'request_too_large' });
    expect(response.body.error.message).toContain('64');
  });

  it('refuses a chunked body (no content-length) that grows over the limit', async () => {
    const response = await rawRequest(t.url, 'POST', APPS, {
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json' },
      chunks: ['{"name":"', 'n'.repeat(40), 'n'.repeat(40), '"}'],
    });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('request_too_large');
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('routing', () => {
  const t = useTestServer();

  it('answers an unknown path with a 404 error body', async () => {
    for (const path of [`${API}/no-such-thing`, '/no-such-thing', `${API}/developer/apps/${t.appUuid}/nope`]) {
      expectApiError(await t.call('GET', path), 404, { type: 'not_found', code: 'route_not_found' });
    }
  });

  it('answers an unknown path with 404 even without credentials', async () => {
    expectApiError(await t.call('GET', `${API}/no-such-thing`, { key: null }), 404);
  });

  it('answers a wrong method with 405 and an allow header', async () => {
    const response = await t.call('PUT', APPS, { body: { name: 'x' } });
    expectApiError(response, 405, { code: 'method_not_allowed' });
    expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
  });

  it('lists every method of a path in allow', async () => {
    const response = await t.call('POST', appPath(t.appUuid));
    expectApiError(response, 405);
    expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  it('has a handler for every operation of the contract: nothing answers 501', () => {
    const missing = operations.filter((op) => !(op.id in handlers)).map((op) => op.id);
    expect(missing).toEqual([]);
  });
});

describe('request validation', () => {
  const t = useTestServer();

  it('names an unknown body field in param', async () => {
    const response = await t.call('POST', APPS, { body: { name: 'x', colour: 'red' } });
    expectApiError(response, 400, { type: 'invalid_request_error', code: 'unknown_field', param: 'colour' });
    expect(response.body.error.message).toContain('colour');
  });

  it('names a missing required field in param', async () => {
    const response = await t.call('POST', APPS, { body: {} });
    expectApiError(response, 400, { code: 'missing_field', param: 'name' });
  });

  it('treats an empty body as no fields (so the required one is missing)', async () => {
    const response = await t.call('POST', APPS, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expectApiError(response, 400, { code: 'missing_field', param: 'name' });
  });

  it.each([
    ['name', { name: 5 }],
    ['app_type', { name: 'x', app_type: 'premium' }],
    ['default_user_credits', { name: 'x', default_user_credits: '10' }],
    ['default_user_credits', { name: 'x', default_user_credits: -1 }],
    ['allowed_origins', { name: 'x', allowed_origins: 'https://a.example' }],
    ['allowed_origins[1]', { name: 'x', allowed_origins: ['https://a.example', 42] }],
  ])('names the field with the wrong type or value: %s', async (param, body) => {
    const response = await t.call('POST', APPS, { body });
    expectApiError(response, 400, { type: 'invalid_request_error', code: 'invalid_value', param });
  });

  it('names a wrong boolean on key creation', async () => {
    const response = await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: { is_test: 'yes' } });
    expectApiError(response, 400, { param: 'is_test' });
  });

  it('refuses an invalid UUID in the path, naming app_uuid', async () => {
    const response = await t.call('GET', appPath('not-a-uuid'));
    expectApiError(response, 400, { type: 'invalid_request_error', param: 'app_uuid' });
  });

  it('refuses an invalid address in the path, naming address', async () => {
    const response = await t.call('GET', appPath(t.appUuid, 'users', '0x1234'));
    expectApiError(response, 400, { param: 'address' });
  });

  it.each(['0', '101', '-1', '2.5', 'ten'])('refuses limit=%s on the apps list', async (limit) => {
    const response = await t.call('GET', `${APPS}?limit=${limit}`);
    expectApiError(response, 400, { type: 'invalid_request_error', param: 'limit' });
  });

  it('accepts limit=1 and limit=100 on the apps list', async () => {
    for (const limit of [1, 100]) {
      const response = await t.call('GET', `${APPS}?limit=${limit}`);
      expectStatus(response, 200);
      expect(response.body.limit).toBe(limit);
    }
  });

  it('refuses a negative offset', async () => {
    expectApiError(await t.call('GET', `${APPS}?offset=-1`), 400, { param: 'offset' });
  });

  it('allows limit=200 on the users list but not 201', async () => {
    const ok = await t.call('GET', `${appPath(t.appUuid, 'users')}?limit=200`);
    expectStatus(ok, 200);
    expect(ok.body.limit).toBe(200);
    expectApiError(await t.call('GET', `${appPath(t.appUuid, 'users')}?limit=201`), 400, { param: 'limit' });
  });

  it('refuses limit=101 on the API keys list (maximum 100)', async () => {
    expectApiError(await t.call('GET', `${appPath(t.appUuid, 'api-keys')}?limit=101`), 400, { param: 'limit' });
  });

  it('refuses an unknown query parameter, naming it', async () => {
    expectApiError(await t.call('GET', `${APPS}?page=2`), 400, { code: 'unknown_field', param: 'page' });
  });

  it('refuses a repeated query parameter instead of picking one', async () => {
    const response = await t.call('GET', `${APPS}?limit=1&limit=2`);
    expectApiError(response, 400, { type: 'invalid_request_error', param: 'limit' });
  });

  it.each([-5, 0, 0.0000004, 5e-324])('refuses %s credits on a user top-up', async (credits) => {
    const address = randomAddress();
    const response = await t.call('POST', appPath(t.appUuid, 'users', address, 'top-up'), { body: { credits } });
    expectApiError(response, 400, { param: 'credits' });
    expectApiError(await t.call('GET', appPath(t.appUuid, 'users', address)), 404);
  });
});

describe('odd input', () => {
  const t = useTestServer();

  it('never produces a 500: every odd request gets a 4xx', async () => {
    const user = appPath(t.appUuid, 'users', randomAddress());
    const json = { 'content-type': 'application/json' };
    const requests: [string, string, string | undefined][] = [
      ['POST', APPS, 'null'],
      ['POST', APPS, '"text"'],
      ['POST', APPS, '[]'],
      ['POST', APPS, '1e999'],
      ['POST', APPS, JSON.stringify({ name: 'x', default_user_credits: 1e10 })],
      ['POST', APPS, JSON.stringify({ name: 'x', allowed_origins: Array(101).fill('https://a.example') })],
      ['POST', APPS, '{"name":"x","__proto__":{"admin":true}}'],
      ['POST', APPS, '{"name":"x","name":{"nested":true}}'],
      ['POST', `${user}/top-up`, JSON.stringify({ credits: 1e300 })],
      ['POST', `${user}/top-up`, JSON.stringify({ credits: 1e-300 })],
      ['POST', `${user}/top-up`, JSON.stringify({ credits: null })],
      ['PATCH', user, JSON.stringify({ credits: 1e300 })],
      ['PUT', appPath(t.appUuid, 'idp'), JSON.stringify({ idp_app_id: 'x', idp_verification_key: 'y'.repeat(10_001) })],
      ['GET', `${APPS}?offset=1e300`, undefined],
      ['GET', `${APPS}?limit=Infinity`, undefined],
      ['GET', `${APPS}/%E0%A4%A`, undefined],
      ['GET', `${APPS}/${'a'.repeat(5000)}`, undefined],
      ['DELETE', appPath(t.appUuid, 'api-keys', `key_${'a'.repeat(5000)}`), undefined],
      ['GET', appPath(t.appUuid, 'users', '0x%00'), undefined],
    ];
    const failures: string[] = [];
    for (const [method, path, rawBody] of requests) {
      const response = await t.call(method, path, rawBody === undefined ? {} : { rawBody, headers: json });
      if (response.status < 400 || response.status >= 500) {
        failures.push(`${method} ${path.slice(0, 80)} ${rawBody?.slice(0, 60) ?? ''} → ${response.status}`);
      } else {
        expectApiError(response, response.status);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('every response', () => {
  const t = useTestServer();

  it('carries a distinct x-request-id, success or error', async () => {
    const responses = [
      await t.call('GET', '/health', { key: null }),
      await t.call('GET', APPS),
      await t.call('POST', APPS, { body: { name: 'x' } }),
      await t.call('GET', APPS, { key: null }),
      await t.call('GET', `${API}/nowhere`),
      await t.call('PUT', APPS),
      await t.call('POST', APPS, { body: {} }),
      await t.call('GET', `${API}/agents`),
    ];
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers errors with exactly {error: {message, type, code, param}}', async () => {
    const errors = [
      await t.call('GET', APPS, { key: null }),
      await t.call('GET', `${API}/nowhere`),
      await t.call('PUT', APPS),
      await t.call('POST', APPS, { body: { name: 'x', extra: 1 } }),
      await t.call('GET', appPath('00000000-0000-4000-8000-000000000000')),
    ];
    for (const response of errors) {
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expectApiError(response, response.status);
      expect(response.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('the body limit default', () => {
  it('is 1 MiB: a body just under it is read', async () => {
    const t = await startTestServer();
    try {
      // Valid JSON just under 1 MiB, refused for its content (name too long), not its size.
      const rawBody = JSON.stringify({ name: 'x'.repeat(MiB - 100) });
      const response = await t.call('POST', APPS, { rawBody, headers: { 'content-type': 'application/json' } });
      expectApiError(response, 400, { param: 'name' });
    } finally {
      await t.close();
    }
  });
});
