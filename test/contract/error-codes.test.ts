import { describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { CODES_OUTSIDE_OPERATIONS, ERROR_CODES, errorCodesOf, type ErrorCode } from '../../src/contract/errors.js';
import type { AnyOperation } from '../../src/contract/operation.js';
import { operations } from '../../src/contract/operations/index.js';
import { openApiPath } from '../../src/contract/openapi.js';
import { API, appPath, expectApiError, unknownApiKey, useTestServer } from '../helpers/api.js';

const allOperations = operations as readonly AnyOperation[];
const declared = Object.keys(ERROR_CODES) as ErrorCode[];

// The server can produce only declared codes: ApiError takes no other (the typecheck fails here).
// @ts-expect-error an undeclared code
new ApiError(400, 'invalid_request_error', 'never thrown', 'not_a_declared_code');

describe('the error codes, declared once in the contract', () => {
  it('are each answered by some operation or named as answered outside them', () => {
    const listed = new Set<ErrorCode>([...allOperations.flatMap(errorCodesOf), ...CODES_OUTSIDE_OPERATIONS]);
    expect(declared.filter((code) => !listed.has(code))).toEqual([]);
  });

  it('name only declared codes in the operations, and each has a status and a meaning', () => {
    for (const code of allOperations.flatMap((op) => op.errors ?? [])) expect(declared, code).toContain(code);
    for (const code of declared) {
      expect(ERROR_CODES[code].status, code).toBeGreaterThanOrEqual(400);
      expect(ERROR_CODES[code].meaning.length, code).toBeGreaterThan(10);
    }
  });

  describe('in the OpenAPI document', () => {
    const t = useTestServer({}, { scope: 'file' });
    const fetchDocument = async (): Promise<any> => (await t.call('GET', `${API}/docs/swagger.json`, { key: null })).body;

    it('lists every code with its status and meaning', async () => {
      const doc = await fetchDocument();
      expect(doc['x-svc-error-codes']).toEqual(ERROR_CODES);
    });

    it("lists each operation's codes under the status they answer with", async () => {
      const doc = await fetchDocument();
      for (const op of allOperations) {
        const responses = doc.paths[openApiPath(op)][op.method.toLowerCase()].responses;
        const documented = Object.entries(responses as Record<string, { 'x-svc-error-codes'?: string[] }>).flatMap(([status, response]) =>
          (response['x-svc-error-codes'] ?? []).map((code) => `${code}@${status}`),
        );
        expect(documented.sort(), op.id).toEqual(errorCodesOf(op).map((code) => `${code}@${ERROR_CODES[code].status}`).sort());
      }
    });

    it('lists what an operation declares for itself, and what its declaration implies', async () => {
      const doc = await fetchDocument();
      const remove = doc.paths[`${API}/developer/apps/{app_uuid}`].delete.responses;
      expect(remove['409']['x-svc-error-codes']).toEqual(expect.arrayContaining(['app_holds_credits', 'app_requests_in_flight']));
      expect(remove['404']['x-svc-error-codes']).toContain('app_not_found');
      expect(remove['401']['x-svc-error-codes']).toEqual(expect.arrayContaining(['missing_credentials', 'invalid_api_key']));
      const chat = doc.paths[`${API}/chat/completions`].post.responses;
      expect(chat['402']['x-svc-error-codes']).toEqual(['budget_exceeded', 'insufficient_credits']);
      expect(doc.paths['/health'].get.responses['401']).toBeUndefined();
    });
  });

  describe('as the server answers them', () => {
    const t = useTestServer({}, { scope: 'file' });
    const expectDeclared = (response: Awaited<ReturnType<typeof t.call>>, code: ErrorCode) =>
      expectApiError(response, ERROR_CODES[code].status, { code });

    it('answers with the status its code is declared with', async () => {
      expectDeclared(await t.call('GET', appPath('00000000-0000-4000-8000-000000000000')), 'app_not_found');
      expectDeclared(await t.call('GET', `${API}/credits/balance`, { key: null }), 'missing_credentials');
      expectDeclared(await t.call('GET', `${API}/credits/balance`, { key: unknownApiKey() }), 'invalid_api_key');
      expectDeclared(await t.call('GET', `${API}/no/such/route`), 'route_not_found');
    });
  });
});
