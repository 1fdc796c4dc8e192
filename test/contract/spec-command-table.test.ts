import { describe, expect, it } from 'vitest';
import { pathParamNames, type AnyOperation } from '../../src/contract/operation.js';
import { operations } from '../../src/contract/operations/index.js';
import { specCommands, specPaths } from '../helpers/spec.js';

const allOperations = operations as readonly AnyOperation[];
const commands = specCommands();
const paths = specPaths();

const byCommand = new Map(allOperations.map((op) => [op.cli.join(' '), op]));
const fullPath = (op: AnyOperation) => (op.absolutePath ? op.path : `/api/v1${op.path}`);
/** The spec's `<app-uuid>` is the contract's `app_uuid`. */
const paramName = (positional: string) => positional.replaceAll('-', '_');
const fieldNames = (schema: AnyOperation['body']) => Object.keys(schema?.shape ?? {});

/** The path table names operations in words; these are the commands those words mean. */
const commandOfPathRow: Record<string, string> = {
  'GET /agents': 'agents list',
  'GET /agents/{id}': 'agents get',
  'GET /config': 'config list',
  'GET /credits/balance': 'credits balance',
  'GET /credits/packs': 'credits packs',
  'GET /developer/billing': 'developer billing',
  'GET /developer/apps': 'developer apps list',
  'GET /developer/apps/{app_uuid}': 'developer apps get',
  'DELETE /developer/apps/{app_uuid}': 'developer apps delete',
  'GET /developer/apps/{app_uuid}/usage': 'developer apps usage',
  'GET /developer/apps/{app_uuid}/usage/users': 'developer apps usage users',
  'GET /developer/apps/{app_uuid}/api-keys': 'developer apps api-keys list',
  'DELETE /developer/apps/{app_uuid}/api-keys/{key_id}': 'developer apps api-keys delete',
  'DELETE /developer/apps/{app_uuid}/idp': 'developer apps idp delete',
  'GET /developer/apps/{app_uuid}/users': 'developer apps users list',
  'GET /developer/apps/{app_uuid}/users/{address}': 'developer apps users get',
  'GET /models': 'models list',
  'GET /subscriptions/plans': 'subscriptions plans',
  'GET /subscriptions/status': 'subscriptions status',
  'GET /text/{channel}/lookup': 'text lookup',
  'GET /text/{channel}/status': 'text status',
  'DELETE /text/{channel}/unregister': 'text unregister',
  'GET /tools': 'tools list',
  'GET /usage/models': 'usage models',
  'POST /responses': 'responses create',
};

function operationFor(command: string): AnyOperation {
  const op = byCommand.get(command);
  if (!op) throw new Error(`the specification's command "${command}" is not in the contract`);
  return op;
}

describe('the specification command table', () => {
  it('has the 48 commands of the specification, all distinct', () => {
    expect(commands).toHaveLength(48);
    expect(new Set(commands.map((c) => c.command)).size).toBe(48);
  });

  it('has every command in the contract, under the same CLI words', () => {
    const missing = commands.map((c) => c.command).filter((command) => !byCommand.has(command));
    expect(missing).toEqual([]);
  });

  it('gives no two operations the same CLI words', () => {
    expect(byCommand.size).toBe(allOperations.length);
  });

  it.each(commands.map((c) => [c.command, c] as const))('%s: positionals match the path parameters, in order', (_, spec) => {
    const op = operationFor(spec.command);
    const expected = spec.positionals.map(paramName);
    expect(pathParamNames(op.path)).toEqual(expected);
    // The params schema's key order is the order of the CLI positionals.
    expect(Object.keys(op.params?.shape ?? {})).toEqual(expected);
  });

  it.each(commands.filter((c) => c.fields.length > 0).map((c) => [c.command, c] as const))(
    '%s: the fields the specification names are accepted where it says',
    (_, spec) => {
      const op = operationFor(spec.command);
      const accepted = fieldNames(spec.fieldsAreQuery ? op.query : op.body);
      expect(accepted).toEqual(expect.arrayContaining(spec.fields));
    },
  );
});

describe('the specification path table', () => {
  it('was read (25 rows)', () => {
    expect(paths).toHaveLength(25);
  });

  it.each(paths.map((p) => [`${p.method} ${p.path}`, p] as const))('%s is one operation of the contract', (_, row) => {
    const matching = allOperations.filter((op) => op.method === row.method && fullPath(op) === `/api/v1${row.path}`);
    expect(matching.map((op) => op.id)).toHaveLength(1);
    const op = matching[0] as AnyOperation;
    // …and that operation is one of the specification's commands.
    expect(commands.map((c) => c.command)).toContain(op.cli.join(' '));
  });

  it.each(paths.map((p) => [`${p.method} ${p.path}`, p] as const))('%s is the command its description names', (_, row) => {
    const command = commandOfPathRow[`${row.method} ${row.path}`];
    expect(command, 'a path-table row this test does not know').toBeDefined();
    const op = operationFor(command as string);
    expect(`${op.method} ${fullPath(op)}`).toBe(`${row.method} /api/v1${row.path}`);
  });
});
