import { UsageError } from 'clipanion';
import type { Field, JsonSchema } from '../contract/json-schema.js';

export const kebab = (name: string) => name.replaceAll('_', '-');

function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  const add = (s: JsonSchema) => {
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) s.type.forEach((t) => types.add(t));
    if (s.enum) types.add('string');
    s.anyOf?.forEach(add);
  };
  add(schema);
  return types;
}

export type FlagKind = 'boolean' | 'number' | 'json' | 'string';

/** How a field is given on the command line, from its JSON Schema. */
export function flagKind(field: Field): FlagKind {
  const types = typesOf(field.schema);
  types.delete('null');
  if (types.size === 1 && types.has('boolean')) return 'boolean';
  if ([...types].every((t) => t === 'integer' || t === 'number') && types.size > 0) return 'number';
  if (types.has('array') || types.has('object')) return 'json';
  return 'string';
}

/** `--allowed-origins '["https://a.com"]'` or `--allowed-origins https://a.com,https://b.com`. */
function parseJsonFlag(field: Field, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    // Text that is not JSON is the text itself where the field takes a string too.
    if (typesOf(field.schema).has('string')) return raw;
    const items = field.schema.items ?? field.schema.anyOf?.find((s) => s.type === 'array')?.items;
    if (items?.type === 'string') {
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    }
    throw new UsageError(`--${kebab(field.name)} expects JSON (got ${JSON.stringify(raw)}).`);
  }
}

/** Turns a flag's text into the value the API takes. */
export function parseFlag(field: Field, raw: string | boolean): unknown {
  const kind = flagKind(field);
  if (kind === 'boolean' || typeof raw === 'boolean') return raw;
  const nullable = typesOf(field.schema).has('null');
  if (nullable && raw === 'null') return null;
  if (kind === 'number') {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) {
      throw new UsageError(`--${kebab(field.name)} expects a number (got ${JSON.stringify(raw)}).`);
    }
    return value;
  }
  if (kind === 'json') return parseJsonFlag(field, raw);
  return raw;
}

/** `--json '{…}'`: the whole request body as one JSON object. */
export function parseJsonBody(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`--json is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--json must be a JSON object, e.g. --json \'{"name":"my-app"}\'.');
  }
  return value as Record<string, unknown>;
}
