import { describe, expect, it } from 'vitest';
import { buildManifest, type OperationManifest } from '../../src/contract/manifest.js';
import { API, sandboxUser, useTestServer } from '../helpers/api.js';

/**
 * Every operation of the contract, fed wrong input of every kind: malformed JSON, each body field
 * set to each wrong type, hostile path arguments, nonsense query values. The answer must always
 * be a clear 4xx in the API's error shape, never a 5xx (a 501 would be an unbuilt operation).
 * Wrong input must be refused whatever the server holds, so one server takes all of it (with
 * limits no test reaches: a 429 would hide what the handlers answer).
 */
const t = useTestServer({ rateLimitRequestsPerMinute: 1_000_000_000, rateLimitTokensPerMinute: 1_000_000_000 }, { scope: 'file' });
const manifest = buildManifest();

const WRONG_VALUES: unknown[] = [null, 12345, -1, 1e308, 'x', '', true, [], {}, ['a', 1], { nested: { deep: [null] } }, 'a'.repeat(5000)];
const PATH_VALUES = ['does-not-exist', '..', '%2e%2e%2f', 'x'.repeat(600), '00000000-0000-0000-0000-000000000000', '%00', 'sk live'];
const QUERY_VALUES = ['abc', '-1', '99999999999999999999', '', 'null', '1.5', '2026-13-45T99:99:99Z'];

function pathOf(op: OperationManifest, params: Record<string, string>): string {
  const path = op.path.replace(/\{([a-z_]+)\+?\}/g, (_, name: string) => params[name] ?? 'missing');
  return op.absolutePath ? path : `/api/v1${path}`;
}

/**
 * Who calls: the owner's live key, another key (`forbidden` says whether its role or test mode
 * bars the operation), or an end user's identity token (a sandbox one).
 */
let as: { key?: string | null; authorization?: string; forbidden?: boolean } = {};

async function expectHandled(op: OperationManifest, what: string, request: { path: string; rawBody?: string; contentType?: string }) {
  const response = await t.call(op.method, request.path, {
    ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
    ...(as.key !== undefined ? { key: as.key } : {}),
    headers: {
      ...(request.rawBody !== undefined ? { 'content-type': request.contentType ?? 'application/json' } : {}),
      ...(as.authorization ? { authorization: as.authorization } : {}),
    },
  });
  const where = `${op.id} (${op.method} ${request.path.slice(0, 120)}) with ${what}`;
  expect(response.status, `${where}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(500);
  // What the key may not do it never does, whatever the input: the role is checked first.
  // (A path argument such as '..' can make the URL another route's: that is not this operation.)
  const elsewhere = ['route_not_found', 'method_not_allowed'].includes(response.body?.error?.code);
  if (as.forbidden && !elsewhere) expect(response.status, `${where}: ${JSON.stringify(response.body).slice(0, 300)}`).toBe(403);
  if (response.status >= 400 && typeof response.body === 'object' && response.body !== null) {
    expect(Object.keys(response.body), where).toContain('error');
  }
}

async function feedWrongInput(op: OperationManifest) {
  const goodParams = Object.fromEntries(op.params.map((p) => [p.name, 'does-not-exist']));
  const path = pathOf(op, goodParams);

  for (const value of PATH_VALUES) {
    for (const param of op.params) {
      await expectHandled(op, `path ${param.name}=${value.slice(0, 20)}`, {
        path: pathOf(op, { ...goodParams, [param.name]: value }),
        ...(op.hasBody ? { rawBody: '{}' } : {}),
      });
    }
  }
  for (const value of QUERY_VALUES) {
    for (const field of op.query) {
      await expectHandled(op, `query ${field.name}=${value}`, { path: `${path}?${field.name}=${encodeURIComponent(value)}` });
    }
  }
  if (!op.hasBody) return;
  for (const raw of ['{bad json', '[]', '"text"', 'null', '123', '{"__proto__": {"admin": true}}', '']) {
    await expectHandled(op, `body ${raw || '(empty)'}`, { path, rawBody: raw });
  }
  await expectHandled(op, 'a body that is not JSON', { path, rawBody: 'a=b', contentType: 'application/x-www-form-urlencoded' });
  for (const field of op.body) {
    for (const value of WRONG_VALUES) {
      await expectHandled(op, `body ${field.name}=${JSON.stringify(value).slice(0, 30)}`, {
        path,
        rawBody: JSON.stringify({ [field.name]: value }),
      });
    }
  }
}

describe('wrong input to every operation, with an API key', () => {
  for (const op of manifest) {
    it(`${op.id} answers every wrong input with a 4xx, never a 5xx`, async () => {
      as = {};
      await feedWrongInput(op);
    });
  }
});

describe('wrong input to every operation an end user may call, with an identity token', () => {
  for (const op of manifest.filter((o) => o.auth.includes('identity_token'))) {
    it(`${op.id} answers every wrong input with a 4xx, never a 5xx`, async () => {
      const { token } = await sandboxUser(t);
      const authorization = `Bearer ${token}`;
      as = { key: null, authorization };
      // The token gets past authentication, so the wrong input meets the handlers themselves.
      expect((await t.call('GET', `${API}/credits/balance`, { key: null, headers: { authorization } })).status).toBe(200);
      await feedWrongInput(op);
    });
  }
});

const KEYS = [
  { name: 'an inference key', role: 'inference', is_test: false },
  { name: 'a read_only key', role: 'read_only', is_test: false },
  { name: 'an inference test key', role: 'inference', is_test: true },
  { name: 'a read_only test key', role: 'read_only', is_test: true },
] as const;

for (const key of KEYS) {
  describe(`wrong input to every operation, with ${key.name}`, () => {
    for (const op of manifest.filter((o) => o.auth.includes('api_key'))) {
      const forbidden = !op.roles.includes(key.role) || (key.is_test && !op.testKeys);
      it(`${op.id} answers every wrong input with a 4xx${forbidden ? ', always the 403 of its role' : ''}`, async () => {
        const created = await t.server.services.apiKeys.create(t.appUuid, { name: key.name, role: key.role, is_test: key.is_test });
        as = { key: created.secret, forbidden };
        await feedWrongInput(op);
      });
    }
  });
}

describe('control characters in text the server keeps', () => {
  // A NUL cannot be stored in PostgreSQL text at all, and any of them would garble a terminal
  // listing the value: refused with a 400 naming the field, on either backend.
  it.each([
    ['POST', '/api/v1/developer/apps', { name: 'a\u0000b' }, 'name'],
    ['POST', '/api/v1/developer/apps', { name: 'two\nlines' }, 'name'],
    ['POST', '/api/v1/credits/purchase', { credits: 500, referral: 'r\u0000' }, 'referral'],
    ['POST', '/api/v1/credits/purchase', { credits: 500, success_url: 'https://app.example/\u0000' }, 'success_url'],
    ['POST', '/api/v1/credits/purchase', { credits: 500, cancel_url: 'https://app.example/\u001b[2J' }, 'cancel_url'],
  ] as const)('%s %s %j: 400 naming %s', async (method, path, body, param) => {
    as = {};
    const answer = await t.call(method, path, { body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({ param, code: 'invalid_value' });
  });

  it('a key name and an app rename too; surrounding whitespace is still trimmed', async () => {
    const keys = `/api/v1/developer/apps/${t.appUuid}/api-keys`;
    expect((await t.call('POST', keys, { body: { name: 'k\u0000' } })).body.error).toMatchObject({ param: 'name' });
    expect((await t.call('PATCH', `/api/v1/developer/apps/${t.appUuid}`, { body: { name: 'x\u007f' } })).body.error).toMatchObject({ param: 'name' });
    expect((await t.call('POST', keys, { body: { name: '\tspaced\n' } })).body.name).toBe('spaced');
  });
});
