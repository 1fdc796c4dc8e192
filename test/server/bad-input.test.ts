import { describe, expect, it } from 'vitest';
import { buildManifest, type OperationManifest } from '../../src/contract/manifest.js';
import { API, sandboxUser, useTestServer } from '../helpers/api.js';

/**
 * Every operation of the contract, fed wrong input of every kind: malformed JSON, each body field
 * set to each wrong type, hostile path arguments, nonsense query values. The answer must always
 * be a clear 4xx in the API's error shape, never a 5xx (a 501 would be an unbuilt operation).
 */
const t = useTestServer();
const manifest = buildManifest();

const WRONG_VALUES: unknown[] = [null, 12345, -1, 1e308, 'x', '', true, [], {}, ['a', 1], { nested: { deep: [null] } }, 'a'.repeat(5000)];
const PATH_VALUES = ['does-not-exist', '..', '%2e%2e%2f', 'x'.repeat(600), '00000000-0000-0000-0000-000000000000', '%00', 'sk live'];
const QUERY_VALUES = ['abc', '-1', '99999999999999999999', '', 'null', '1.5', '2026-13-45T99:99:99Z'];

function pathOf(op: OperationManifest, params: Record<string, string>): string {
  const path = op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => params[name] ?? 'missing');
  return op.absolutePath ? path : `/api/v1${path}`;
}

/** Who calls: the owner's live key, or an end user's identity token (a sandbox one). */
let as: { key?: null; authorization?: string } = {};

async function expectHandled(op: OperationManifest, what: string, request: { path: string; rawBody?: string; contentType?: string }) {
  const response = await t.call(op.method, request.path, {
    ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
    ...(as.key === null ? { key: null } : {}),
    headers: {
      ...(request.rawBody !== undefined ? { 'content-type': request.contentType ?? 'application/json' } : {}),
      ...(as.authorization ? { authorization: as.authorization } : {}),
    },
  });
  const where = `${op.id} (${op.method} ${request.path.slice(0, 120)}) with ${what}`;
  expect(response.status, `${where}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(500);
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
