import { fieldsOf, toJsonSchema, type JsonSchema } from './json-schema.js';
import { describeAccess, describeRoles, type AnyOperation } from './operation.js';
import { operations } from './operations/index.js';
import { ApiErrorBody } from './schemas/common.js';
import { GROUP_DESCRIPTIONS } from './groups.js';
import { ERROR_CODES, errorCodesOf, type ErrorCode } from './errors.js';

const API_PREFIX = '/api/v1';

const securityOf = (op: AnyOperation): Record<string, string[]>[] =>
  op.auth.includes('none')
    ? []
    : op.auth.flatMap((scheme): Record<string, string[]>[] =>
        scheme === 'api_key' ? [{ ApiKey: [] }, { ApiKeyBearer: [] }] : [{ IdentityToken: [] }],
      );

/** An error answer: the codes it can carry are listed (`x-svc-error-codes`) and named in the description. */
const errorResponse = (description: string, codes: readonly ErrorCode[]) => ({
  description: codes.length > 0 ? `${description}. Codes: ${codes.join(', ')}` : description,
  ...(codes.length > 0 ? { 'x-svc-error-codes': [...codes] } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the message names the field',
  401: 'Missing or invalid credentials',
  402: 'Not enough credits or budget',
  404: 'Not found',
  409: 'Conflicts with the current state',
  429: 'Rate limited',
};

/** The operation's error responses, one per status its codes answer with. */
function errorResponses(op: AnyOperation): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of byStatus) {
    const described =
      status === 403 && op.roles ? `Forbidden: ${describeRoles(op.roles)} is needed` : (STATUS_DESCRIPTIONS[status] ?? 'Error');
    responses[String(status)] = errorResponse(described, codes);
  }
  return responses;
}

function operationObject(op: AnyOperation) {
  const parameters = [
    ...fieldsOf(op.params).map((field) => ({
      name: field.name,
      in: 'path',
      required: true,
      schema: field.schema,
      ...(field.schema.description ? { description: field.schema.description } : {}),
    })),
    ...fieldsOf(op.query).map((field) => ({
      name: field.name,
      in: 'query',
      required: field.required,
      schema: field.schema,
      ...(field.schema.description ? { description: field.schema.description } : {}),
    })),
  ];
  const success: Record<string, unknown> = {
    description: op.summary,
    content: {
      'application/json': { schema: toJsonSchema(op.response, 'output') },
      ...(op.stream === 'optional'
        ? { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events (with stream: true)' } } }
        : {}),
    },
  };
  const access = describeAccess(op.roles ?? [], { testKeys: op.testKeys ?? true, liveKeys: op.liveKeys ?? true });
  const description = [op.description, access].filter(Boolean).join('\n\n');
  return {
    operationId: op.id,
    summary: op.summary,
    ...(description ? { description } : {}),
    tags: [op.cli[0] as string],
    'x-svc-cli': `svc api ${op.cli.join(' ')}`,
    ...(op.roles ? { 'x-svc-roles': [...op.roles], 'x-svc-test-keys': op.testKeys ?? true, 'x-svc-live-keys': op.liveKeys ?? true } : {}),
    security: securityOf(op),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(op.body, 'input') } } } }
      : op.method === 'POST' && !op.auth.includes('none')
        ? // A POST without fields still takes an empty JSON object, as SDKs send one.
          { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } } } }
        : {}),
    responses: {
      [String(op.successStatus ?? 200)]: success,
      ...errorResponses(op),
      default: errorResponse('Error', []),
    },
  };
}

/** An operation's path in the document: `{name+}` (the rest of the path, slashes included) is a plain template there. */
export const openApiPath = (op: AnyOperation) => (op.absolutePath ? op.path : `${API_PREFIX}${op.path}`).replace(/\+\}/g, '}');

/** The OpenAPI 3.1 document of the whole API, generated from the contract. */
export function buildOpenApiDocument(options: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations as readonly AnyOperation[]) {
    const path = openApiPath(op);
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[op.method.toLowerCase()] = operationObject(op);
  }
  const errorSchema: JsonSchema = toJsonSchema(ApiErrorBody, 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc platform API',
      version: options.version,
      description: 'OpenAI-compatible AI platform API: inference across providers, metered in credits (1 credit = $0.01).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [...new Set((operations as readonly AnyOperation[]).map((op) => op.cli[0] as string))].map((name) => ({
      name,
      description: GROUP_DESCRIPTIONS[name] ?? `The ${name} operations`,
    })),
    paths,
    // Every code the API answers with, its status and meaning (src/contract/errors.ts).
    'x-svc-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => [code, { status, meaning }])),
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'An svc API key as a bearer token' },
        IdentityToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
