import type { z } from 'zod';
import type { ErrorCode } from '../src/contract/errors.js';
import { invalidRequest } from './errors.js';

/** `messages.0.content` → `messages[0].content`, as OpenAI names parameters. */
function paramName(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function describe(issue: z.core.$ZodIssue, where: string): { param: string | null; message: string; code: ErrorCode } {
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

/** Parses a value against a contract schema (a request at any layer: the router, or a service that reads it again), or throws a 400 that names the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw invalidRequest(`Invalid ${where}.`);
  const { param, message, code } = describe(issue, where);
  throw invalidRequest(message, param, code);
}
