/**
 * The echo model's structured output: asked for JSON (`response_format`), it answers a value that
 * fits the schema, its strings carrying what the user said, so clients that parse structured
 * output (`.parse()`, `generateObject`, `withStructuredOutput`) work offline too.
 */
type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;

function valueFor(schema: unknown, said: string, depth: number, defs: Record<string, unknown>): unknown {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return null;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').at(-1) ?? '';
    return valueFor(defs[name], said, depth + 1, defs);
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) {
    const first = variants.find((v) => (v as Schema | null)?.type !== 'null') ?? variants[0];
    return valueFor(first, said, depth + 1, defs);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') as string | undefined) : (s.type as string | undefined);
  switch (type ?? (s.properties ? 'object' : 'string')) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, valueFor(value, said, depth + 1, defs)]));
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 1;
      return Array.from({ length: Math.max(1, Math.min(min, 3)) }, () => valueFor(s.items, said, depth + 1, defs));
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return said;
  }
}

/** The JSON the echo model answers for a `response_format`, or null when none asks for JSON. */
export function structuredEcho(format: unknown, said: string): string | null {
  const f = format as { type?: string; json_schema?: { schema?: Schema } } | undefined;
  if (!f || f.type === 'text' || f.type === undefined) return null;
  if (f.type === 'json_object') return JSON.stringify({ answer: said });
  const schema = f.json_schema?.schema ?? { type: 'object' };
  const defs = { ...((schema.$defs ?? {}) as Record<string, unknown>), ...((schema.definitions ?? {}) as Record<string, unknown>) };
  return JSON.stringify(valueFor(schema, said, 0, defs));
}
