import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { pathParamNames, type AnyOperation } from '../../src/contract/operation.js';
import { operations } from '../../src/contract/operations/index.js';
import { openApiPath } from '../../src/contract/openapi.js';
import { API, expectStatus, useTestServer } from '../helpers/api.js';

const allOperations = operations as readonly AnyOperation[];
const fullPath = openApiPath;

describe('GET /api/v1/docs/swagger.json', () => {
  const t = useTestServer();
  async function fetchDocument(): Promise<any> {
    const response = await t.call('GET', `${API}/docs/swagger.json`, { key: null });
    expectStatus(response, 200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return response.body;
  }

  it('is served without credentials as an OpenAPI 3.1.0 document', async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it('passes the OpenAPI validator', async () => {
    const doc = await fetchDocument();
    // validate() dereferences in place: give it a copy.
    const result = await validate(structuredClone(doc));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
  });

  it('would be caught by the validator if it were broken (the check is not vacuous)', async () => {
    const broken = structuredClone(await fetchDocument());
    const get = broken.paths[`${API}/developer/apps/{app_uuid}`].get;
    get.parameters = get.parameters.filter((p: any) => p.in !== 'path');
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  it('names the server the client reached', async () => {
    const doc = await fetchDocument();
    expect(doc.servers).toEqual([{ url: t.url }]);
  });

  it('has every operation of the contract under its method and path', async () => {
    const doc = await fetchDocument();
    const missing: string[] = [];
    for (const op of allOperations) {
      const entry = doc.paths?.[fullPath(op)]?.[op.method.toLowerCase()];
      if (entry?.operationId !== op.id) missing.push(`${op.method} ${fullPath(op)} (${op.id})`);
    }
    expect(missing).toEqual([]);
  });

  it('has no operation the contract does not declare', async () => {
    const doc = await fetchDocument();
    const declared = new Set(allOperations.map((op) => `${op.method.toLowerCase()} ${fullPath(op)}`));
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((entry) => !declared.has(entry))).toEqual([]);
    expect(documented).toHaveLength(allOperations.length);
  });

  it('declares each path parameter, and credentials on every non-public operation', async () => {
    const doc = await fetchDocument();
    for (const op of allOperations) {
      const entry = doc.paths[fullPath(op)][op.method.toLowerCase()];
      const inPath = (entry.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(inPath, op.id).toEqual(pathParamNames(op.path));
      if (op.auth.includes('none')) expect(entry.security, op.id).toEqual([]);
      else expect(entry.security.length, op.id).toBeGreaterThan(0);
      expect(entry.responses[String(op.successStatus ?? 200)], op.id).toBeDefined();
    }
  });
});

describe('the OpenAPI document against a linter nobody here wrote', () => {
  const t = useTestServer();

  it('passes @redocly/cli lint with its recommended rules: no error, no warning', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const response = await t.call('GET', `${API}/docs/swagger.json`, { key: null });
    const file = join(mkdtempSync(join(tmpdir(), 'svc-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(response.body));
    const bin = join(process.cwd(), 'node_modules', '.bin', 'redocly');
    let output: string;
    try {
      output = execFileSync(bin, ['lint', file, '--extends', 'recommended', '--format', 'stylish'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    } catch (error) {
      throw new Error(`redocly lint failed:\n${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`);
    }
    expect(output).not.toMatch(/\bwarning\b|\berror\b/);
  }, 60_000);
});
