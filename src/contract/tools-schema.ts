import type { Field, JsonSchema } from './json-schema.js';
import type { OperationManifest } from './manifest.js';
import { describeAccess } from './operation.js';

/**
 * The contract as function tools (OpenAI `tools` format): one tool per operation, its parameters
 * the operation's path arguments, query and body fields, flat, with their JSON Schema from the
 * manifest. `svc docs --json` prints them for agents; `svc chat --admin-tools` offers them to the
 * model. Built from the plain-JSON manifest, so it needs no zod.
 */

export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

export interface OperationTool {
  tool: FunctionTool;
  op: OperationManifest;
}

export interface OperationRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/** What OpenAI, Anthropic and the contract's own `ToolName` accept. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/** A tool call answers with one JSON value, so the fields that ask for a stream are left out. */
const STREAM_FIELDS = new Set(['stream', 'stream_options']);

/** FNV-1a, in base 36: a short, stable tag that tells two long names apart. */
function tag(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}

/**
 * `svc_api_` and the CLI words joined by `_`: the words never contain `_`, so splitting the name
 * on `_` gives the command back. A name too long, or one already taken, keeps its start and ends
 * with a tag of the operation id, so every name stays unique and within 64 characters.
 */
function uniqueName(op: OperationManifest, taken: Set<string>): string {
  const plain = ['svc', 'api', ...op.cli].join('_').replace(/[^a-zA-Z0-9_-]/g, '-');
  let name = plain;
  for (let attempt = 0; name.length > MAX_NAME || taken.has(name); attempt++) {
    const suffix = `_${tag(`${op.id}#${attempt}`)}`;
    name = `${plain.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  }
  taken.add(name);
  return name;
}

/** The fields a tool takes, each with where it goes in the request. */
function toolFields(op: OperationManifest): { field: Field; in: keyof OperationRequest }[] {
  const fields = [
    ...op.params.map((field) => ({ field, in: 'params' as const })),
    ...op.query.map((field) => ({ field, in: 'query' as const })),
    ...op.body.map((field) => ({ field, in: 'body' as const })),
  ];
  return op.stream ? fields.filter((f) => f.in !== 'body' || !STREAM_FIELDS.has(f.field.name)) : fields;
}

function parametersOf(op: OperationManifest): JsonSchema {
  const fields = toolFields(op);
  const required = fields.filter((f) => f.field.required).map((f) => f.field.name);
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.field.name, f.field.schema])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function describe(op: OperationManifest): string {
  const words = ['svc api', ...op.cli, ...op.params.map((p) => `<${p.name.replaceAll('_', '-')}>`)].join(' ');
  const http = `${op.method} ${op.absolutePath ? '' : '/api/v1'}${op.path}`;
  return [
    op.summary.replace(/\.?$/, '.'),
    op.description,
    op.method === 'GET' ? 'Read-only.' : null,
    // Which keys may call it, so an agent knows before it tries.
    describeAccess(op.roles, op),
    `(${http}; \`${words}\`)`,
  ]
    .filter(Boolean)
    .join(' ');
}

/** Every operation as a tool, in contract order. */
export function operationTools(manifest: readonly OperationManifest[]): OperationTool[] {
  const taken = new Set<string>();
  return manifest.map((op) => ({
    op,
    tool: { type: 'function', function: { name: uniqueName(op, taken), description: describe(op), parameters: parametersOf(op) } },
  }));
}

/** The tools schema `svc docs --json` prints. */
export function toolsSchema(manifest: readonly OperationManifest[]): FunctionTool[] {
  return operationTools(manifest).map((t) => t.tool);
}

/**
 * A tool call's arguments as the request of its operation (the inverse of the flat parameters).
 * Unknown names are left out, and checking values is the server's job, as for `svc api` — except
 * path arguments: a missing one would change the URL, and so the operation, so it throws.
 */
export function requestOf(op: OperationManifest, args: Record<string, unknown>): OperationRequest {
  const request: OperationRequest = { params: {}, query: {}, body: op.hasBody ? {} : undefined };
  for (const { field, in: where } of toolFields(op)) {
    const value = args[field.name];
    const usableInPath = (typeof value === 'string' && value !== '') || typeof value === 'number';
    if (where === 'params' && !usableInPath) {
      throw new Error(`Missing the path argument ${field.name}.`);
    }
    if (value === undefined) continue;
    const target = request[where];
    if (target) target[field.name] = value;
  }
  return request;
}
