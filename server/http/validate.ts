import type { z } from 'zod';
import { validate } from '../../src/contract/validation.js';
import { invalidRequest } from '../errors.js';

/** Parses a value against a contract schema, or throws a 400 that names the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = validate(schema, value, where);
  if (result.ok) return result.value;
  throw invalidRequest(result.problem.message, result.problem.param, result.problem.code);
}
