import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../src/contract/operation.js';
import { operations } from '../../src/contract/operations/index.js';
import { explain, loadBuiltManifest, removeTempDirs, runSvc, tempDir, type RunResult } from '../helpers/cli.js';

/** `svc docs`: every command's help, and with `--json` the API as a tools schema for agents. */

const home = tempDir();
afterAll(() => removeTempDirs());

async function svc(...args: string[]): Promise<RunResult> {
  const result = await runSvc(args, { home });
  expect(result.code, explain(result)).toBe(0);
  expect(result.stderr).toBe('');
  return result;
}

interface Tool {
  type: string;
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The standard formats of JSON Schema 2020-12: any other would be a typo an agent's validator rejects. */
const STANDARD_FORMATS = [
  'date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6',
  'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex',
];

describe('svc docs --json', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await svc('docs', '--json')).json();
  });

  it('is an array of OpenAI function tools with valid, unique names', () => {
    expect(Array.isArray(tools)).toBe(true);
    for (const tool of tools) {
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.function.description.length).toBeGreaterThan(0);
      expect(tool.function.parameters.type).toBe('object');
    }
    const names = tools.map((t) => t.function.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('svc_api_developer_apps_create');
  });

  it('has exactly one tool per operation of the contract (and of the built manifest)', () => {
    const names = tools.map((t) => t.function.name).sort();
    const expected = (operations as readonly AnyOperation[]).map((op) => ['svc', 'api', ...op.cli].join('_')).sort();
    expect(names).toEqual(expected);
    expect(loadBuiltManifest().map((op) => ['svc', 'api', ...op.cli].join('_')).sort()).toEqual(expected);
  });

  it('every parameters schema compiles with a JSON Schema 2020-12 validator (strict mode)', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true, formats: Object.fromEntries(STANDARD_FORMATS.map((f) => [f, true])) });
    for (const tool of tools) {
      expect(() => ajv.compile(tool.function.parameters), tool.function.name).not.toThrow();
    }
    // Not vacuous: a broken schema does not compile.
    expect(() => ajv.compile({ type: 'object', properties: { a: { type: 'strin' } } })).toThrow();
    expect(() => ajv.compile({ type: 'string', format: 'uuidd' })).toThrow();
  });

  it('the schemas check arguments the way the API does: required path arguments, types, enums, bounds', () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    const check = (name: string, args: unknown) => {
      const tool = tools.find((t) => t.function.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      return ajv.validate(tool.function.parameters, args);
    };
    const app = '3f0c1a52-8d2e-4c55-9a0b-6f1e2d3c4b5a';
    expect(check('svc_api_developer_apps_create', { name: 'Shop', app_type: 'pooled_api' })).toBe(true);
    expect(check('svc_api_developer_apps_create', {})).toBe(false);
    expect(check('svc_api_developer_apps_create', { name: 'Shop', app_type: 'other' })).toBe(false);
    expect(check('svc_api_developer_apps_create', { name: 'Shop', unknown: 1 })).toBe(false);
    expect(check('svc_api_developer_apps_usage', { app_uuid: app, granularity: 'hour' })).toBe(true);
    expect(check('svc_api_developer_apps_usage', { granularity: 'hour' })).toBe(false);
    expect(check('svc_api_developer_apps_list', { limit: 100 })).toBe(true);
    expect(check('svc_api_developer_apps_list', { limit: 101 })).toBe(false);
    expect(check('svc_api_developer_apps_list', { limit: 'ten' })).toBe(false);
  });
});

describe('svc docs', () => {
  let text: string;
  beforeAll(async () => {
    text = (await svc('docs')).stdout;
  });

  it("prints each command's help: the same text as its --help", async () => {
    for (const words of [['chat'], ['auth', 'login'], ['api', 'developer', 'apps', 'get'], ['docs']]) {
      const help = (await svc(...words, '--help')).stdout;
      expect(text).toContain(`## svc ${words.join(' ')}\n\n${help}`);
    }
  });

  it('covers every command, API and hand-written, with its usage line', () => {
    for (const op of operations as readonly AnyOperation[]) {
      expect(text).toContain(`\n$ svc api ${op.cli.join(' ')}`);
    }
    for (const command of ['auth login', 'auth status', 'auth logout', 'serve', 'chat', 'dashboard', 'docs', 'new']) {
      expect(text).toContain(`\n$ svc ${command}`);
    }
  });

  it('groups the commands by category, each command under its own', () => {
    const headings = [...text.matchAll(/^# (.+)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 3)).toEqual(['Account', 'Server', 'Chat']);
    expect(headings).toContain('API: developer');
    expect(new Set(headings).size).toBe(headings.length);
    const section = (name: string) => text.slice(text.indexOf(`# ${name}\n`)).split(/\n# /)[0] ?? '';
    expect(section('Account')).toContain('## svc auth logout');
    expect(section('API: developer')).toContain('## svc api developer apps api-keys create');
    expect(section('API: developer')).not.toContain('## svc api credits balance');
  });

  it('has no colours when piped', () => {
    expect(text).not.toMatch(/\u001b\[/);
  });

  it('--help explains the command and --json', async () => {
    const help = (await svc('docs', '--help')).stdout;
    expect(help).toContain('$ svc docs');
    expect(help).toContain('--json');
    expect(help).toContain('tools schema');
  });
});
