import { fieldsOf, type Field } from './json-schema.js';
import type { AnyOperation, AuthScheme, HttpMethod, KeyRole } from './operation.js';
import { operations } from './operations/index.js';

/**
 * The contract reduced to plain JSON: what a client needs to call an operation and to build a
 * command line or a tool for it. Generated at build time (`dist/cli/api-manifest.json`) so the
 * CLI starts without evaluating a single zod schema.
 */
export interface OperationManifest {
  id: string;
  cli: string[];
  method: HttpMethod;
  path: string;
  absolutePath: boolean;
  auth: AuthScheme[];
  /** The key roles that may call it (empty when no API key can). */
  roles: KeyRole[];
  /** False when test keys are refused it beyond what the roles say. */
  testKeys: boolean;
  /** False when live keys are refused it (test mode only). */
  liveKeys: boolean;
  stream: boolean;
  rawBody: boolean;
  hasBody: boolean;
  summary: string;
  description: string | null;
  params: Field[];
  query: Field[];
  body: Field[];
}

export function manifestOf(op: AnyOperation): OperationManifest {
  return {
    id: op.id,
    cli: [...op.cli],
    method: op.method,
    path: op.path,
    absolutePath: op.absolutePath ?? false,
    auth: [...op.auth],
    roles: [...(op.roles ?? [])],
    testKeys: op.testKeys ?? true,
    liveKeys: op.liveKeys ?? true,
    stream: op.stream === 'optional',
    rawBody: op.rawBody ?? false,
    hasBody: op.body !== undefined,
    summary: op.summary,
    description: op.description ?? null,
    params: fieldsOf(op.params),
    query: fieldsOf(op.query),
    body: op.rawBody ? [] : fieldsOf(op.body),
  };
}

export function buildManifest(): OperationManifest[] {
  return (operations as readonly AnyOperation[]).map(manifestOf);
}
