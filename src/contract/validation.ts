import type { z } from 'zod';

export interface Problem {
  /** The field, named as OpenAI names parameters: `messages[0].content`. */
  param: string | null;
  message: string;
  code: 'unknown_field' | 'missing_field' | 'invalid_value';
}

function paramName(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function describe(issue: z.core.$ZodIssue, where: string): Problem {
  const base = paramName(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const param = base ? `${base}.${key}` : key;
    return { param, message: `Unknown ${where} field '${param}'.`, code: 'unknown_field' };
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return { param: base, message: `Missing required ${where} field '${base}'.`, code: 'missing_field' };
  }
  const subject = base ? `Invalid ${where} field '${base}'` : `Invalid ${where}`;
  return { param: base || null, message: `${subject}: ${issue.message}.`, code: 'invalid_value' };
}

/**
 * Checks a value against a contract schema. The server and the CLI both use this, so a bad
 * field is described the same way wherever it is caught.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): { ok: true; value: z.output<S> } | { ok: false; problem: Problem } {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return {
    ok: false,
    problem: issue ? describe(issue, where) : { param: null, message: `Invalid ${where}.`, code: 'invalid_value' },
  };
}
