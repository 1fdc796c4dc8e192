import { z } from 'zod';
import type { FieldsSchema } from './operation.js';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  anyOf?: JsonSchema[];
  [key: string]: unknown;
};

/**
 * JSON Schema (2020-12) of a contract schema. Requests are described by what they accept
 * (`input`: fields with defaults are optional), responses by what they return.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

export interface Field {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** The fields of a params, query or body object, in declaration order. */
export function fieldsOf(schema: FieldsSchema | undefined): Field[] {
  if (!schema) return [];
  const json = toJsonSchema(schema, 'input');
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, fieldSchema]) => ({
    name,
    required: required.has(name),
    schema: fieldSchema,
  }));
}
