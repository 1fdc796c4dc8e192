import { describe, expect, it } from 'vitest';
import { buildManifest, type OperationManifest } from '../../src/contract/manifest.js';
import { operationTools, requestOf, toolsSchema, TOOL_NAME } from '../../src/contract/tools-schema.js';

/** The tools schema from the contract itself (the CLI test checks the built `svc docs --json`). */

const manifest = buildManifest();
const toolFor = (id: string) => {
  const found = operationTools(manifest).find((t) => t.op.id === id);
  if (!found) throw new Error(`no tool for ${id}`);
  return found;
};

/** A made-up operation, for names and splitting the contract does not exercise. */
function fakeOp(id: string, cli: string[], extra: Partial<OperationManifest> = {}): OperationManifest {
  return {
    id,
    cli,
    method: 'GET',
    path: `/${cli.join('/')}`,
    absolutePath: false,
    auth: ['api_key'],
    roles: ['inference', 'admin'],
    testKeys: true,
    liveKeys: true,
    stream: false,
    rawBody: false,
    hasBody: false,
    summary: 'A made-up operation',
    description: null,
    params: [],
    query: [],
    body: [],
    ...extra,
  };
}

describe('the tools schema', () => {
  it('names each operation svc_api_<cli words>, which split back on _ into the command', () => {
    const tools = operationTools(manifest);
    expect(tools).toHaveLength(manifest.length);
    for (const { op, tool } of tools) {
      expect(tool.function.name).toBe(['svc', 'api', ...op.cli].join('_'));
      expect(tool.function.name.split('_').slice(2)).toEqual(op.cli);
    }
    expect(toolFor('developer.apps.create').tool.function.name).toBe('svc_api_developer_apps_create');
  });

  it('keeps long names within 64 characters and tells clashing names apart', () => {
    const long = ['an', 'extraordinarily', 'long', 'group', 'name', 'that', 'goes', 'on', 'and', 'on', 'forever'];
    const ops = [
      fakeOp('long.one', [...long, 'one']),
      fakeOp('long.two', [...long, 'two']),
      fakeOp('x.y-z', ['x', 'y-z']),
      // The same name once the character a name cannot hold is replaced: the second gets a tag.
      fakeOp('x.y.z', ['x', 'y.z']),
    ];
    const names = toolsSchema(ops).map((t) => t.function.name);
    for (const name of names) expect(name).toMatch(TOOL_NAME);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toHaveLength(64);
    expect(names[0]?.startsWith('svc_api_an_extraordinarily_long_group')).toBe(true);
    expect(names[2]).toBe('svc_api_x_y-z');
    expect(names[3]).toMatch(/^svc_api_x_y-z_[0-9a-z]+$/);
    // Stable: the same manifest gives the same names.
    expect(toolsSchema(ops).map((t) => t.function.name)).toEqual(names);
  });

  it('takes path arguments as required properties, and query and body fields with their schema', () => {
    const { parameters } = toolFor('developer.apps.usage').tool.function;
    expect(parameters.required).toEqual(['app_uuid']);
    expect(parameters.properties?.granularity).toEqual({ default: 'day', description: 'day (default) or hour', type: 'string', enum: ['day', 'hour'] });
    expect(parameters.additionalProperties).toBe(false);

    const create = toolFor('developer.apps.create').tool.function.parameters;
    expect(create.required).toEqual(['name']);
    expect(create.properties?.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(create.properties?.default_user_credits).toMatchObject({ type: 'number', minimum: 0, default: 0 });
  });

  it('has no parameters where the operation takes none', () => {
    expect(toolFor('credits.balance').tool.function.parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('leaves out the stream fields: a tool call answers with one JSON value', () => {
    const properties = Object.keys(toolFor('chat.completions').tool.function.parameters.properties ?? {});
    expect(properties).toContain('messages');
    expect(properties).not.toContain('stream');
    expect(properties).not.toContain('stream_options');
  });

  it('describes the operation, whether it only reads, its HTTP call and its command', () => {
    expect(toolFor('developer.apps.get').tool.function.description).toBe(
      'Get an app. Read-only. Needs a read_only or admin key. (GET /api/v1/developer/apps/{app_uuid}; `svc api developer apps get <app-uuid>`)',
    );
    expect(toolFor('developer.apps.delete').tool.function.description).not.toContain('Read-only');
  });
});

describe('requestOf', () => {
  it('puts each argument back where the operation takes it, and drops unknown ones', () => {
    const { op } = toolFor('developer.apps.users.top-up');
    expect(requestOf(op, { app_uuid: 'a', address: '0xabc', credits: 5, bogus: true })).toEqual({
      params: { app_uuid: 'a', address: '0xabc' },
      query: {},
      body: { credits: 5 },
    });
    expect(requestOf(toolFor('developer.apps.list').op, { limit: 2 })).toEqual({ params: {}, query: { limit: 2 }, body: undefined });
  });

  it('refuses a missing or empty path argument, which would call another URL', () => {
    const { op } = toolFor('developer.apps.delete');
    expect(() => requestOf(op, {})).toThrow('Missing the path argument app_uuid.');
    expect(() => requestOf(op, { app_uuid: '' })).toThrow('Missing the path argument app_uuid.');
  });

  it('sends a body, empty if need be, exactly to the operations that take one', () => {
    expect(requestOf(toolFor('developer.apps.create').op, {}).body).toEqual({});
    expect(requestOf(toolFor('developer.apps.get').op, { app_uuid: 'a' }).body).toBeUndefined();
  });
});
