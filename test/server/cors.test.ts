import { describe, expect, it } from 'vitest';
import { API, appPath, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

const t = useTestServer();
const APPS = `${API}/developer/apps`;
const allow = (origins: string[]) => t.call('PATCH', appPath(t.appUuid), { body: { allowed_origins: origins } });

describe('CORS', () => {
  it('answers a preflight without credentials, allowing the platform’s headers and the path’s methods', async () => {
    const response = await fetch(`${t.url}${APPS}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-allow-methods')?.split(', ').sort()).toEqual(['GET', 'POST']);
    expect(response.headers.get('access-control-allow-headers')).toBe('X-API-KEY, Authorization, Content-Type, X-SVC-App');
  });

  it('a preflight for a path that does not exist is a 404', async () => {
    const response = await fetch(`${t.url}${API}/nowhere`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(404);
  });

  it('refuses an API-key request from an origin outside allowed_origins with 403', async () => {
    expectApiError(await t.call('GET', APPS, { headers: { origin: 'https://evil.example' } }), 403, { code: 'origin_not_allowed' });
  });

  it('answers an API-key request from an allowed origin with the CORS headers for that origin', async () => {
    expectStatus(await allow(['https://app.example']), 200);
    const response = await t.call('GET', APPS, { headers: { origin: 'https://app.example' } });
    expectStatus(response, 200);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
    // Taking the origin away takes effect on the next request.
    await allow([]);
    expectApiError(await t.call('GET', APPS, { headers: { origin: 'https://app.example' } }), 403, { code: 'origin_not_allowed' });
  });

  it('leaves requests without an Origin (servers, scripts) alone', async () => {
    const response = await t.call('GET', APPS);
    expectStatus(response, 200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('public operations answer any origin', async () => {
    const response = await t.call('GET', '/health', { key: null, headers: { origin: 'https://anyone.example' } });
    expectStatus(response, 200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
