import type { z } from 'zod';
import type { ErrorCode } from './errors.js';

/** How a caller proves who they are. `none` marks public operations (health, JWKS, OpenAPI). */
export type AuthScheme = 'none' | 'api_key' | 'identity_token';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What an API key may do (ARCHITECTURE.md §5). `inference`: inference, catalogs, its own app's balance and
 * what the app's backend needs; `read_only`: every read of the developer's objects; `admin`:
 * everything a developer does to their own apps. Test keys are never `admin`.
 */
export const KEY_ROLES = ['inference', 'read_only', 'admin'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** The role sets operations are declared with. */
export const ROLES = {
  /** Catalogs and the caller's own balance, status and usage: every key. */
  anyKey: ['inference', 'read_only', 'admin'],
  /** Inference and what an app's backend does for its users. */
  inference: ['inference', 'admin'],
  /** Reads of the developer's apps, keys, users, usage and billing. */
  read: ['read_only', 'admin'],
  /** Every change to the developer's apps and money. */
  admin: ['admin'],
} as const satisfies Record<string, readonly KeyRole[]>;

/** "an admin key", "a read_only or admin key": how errors and docs name what an operation needs. */
export function describeRoles(roles: readonly KeyRole[]): string {
  const first = roles[0];
  if (!first) return 'no API key';
  return `${first === 'read_only' ? 'a' : 'an'} ${roles.join(' or ')} key`;
}

/**
 * "Needs an inference or admin key (live keys only)." — what the docs and the tools schema say of
 * who may call an operation; null when no API key can.
 */
export function describeAccess(roles: readonly KeyRole[], modes: { testKeys: boolean; liveKeys: boolean }): string | null {
  if (roles.length === 0) return null;
  const only = !modes.testKeys ? ' (live keys only)' : !modes.liveKeys ? ' (test keys only)' : '';
  return `Needs ${describeRoles(roles)}${only}.`;
}

/** Shape of an object schema whose fields we can enumerate (params, query, body). */
export type FieldsSchema = z.ZodObject<z.ZodRawShape>;

/**
 * One API operation, declared once. The server's router, the typed client, every `svc api`
 * command, the OpenAPI document and the tools schema are all derived from these values.
 */
export interface OperationDefinition<
  Id extends string = string,
  P extends FieldsSchema = FieldsSchema,
  Q extends FieldsSchema = FieldsSchema,
  B extends FieldsSchema = FieldsSchema,
  R extends z.ZodType = z.ZodType,
> {
  /** Stable dotted id, e.g. `developer.apps.create`. */
  readonly id: Id;
  /** Words after `svc api`. */
  readonly cli: readonly string[];
  readonly method: HttpMethod;
  /** Path under `/api/v1` (or absolute when `absolutePath`), with `{name}` placeholders. */
  readonly path: string;
  /** True for the few paths that live outside the `/api/v1` prefix (`/health`, JWKS). */
  readonly absolutePath?: boolean;
  /** Path arguments; their order is the order of the CLI positionals. */
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /** What the server answers with (for a streamed operation: the non-streamed answer). */
  readonly response: R;
  /**
   * `never`: plain JSON. `optional`: streams (SSE) when the body says `stream: true`.
   */
  readonly stream?: 'never' | 'optional';
  /** A body that is not JSON-validated by the router (webhooks read the raw bytes). */
  readonly rawBody?: boolean;
  readonly auth: readonly AuthScheme[];
  /** The key roles that may call it (required when `auth` includes `api_key`), checked before the body is read. */
  readonly roles?: readonly KeyRole[];
  /**
   * False for operations that change live objects or move live credits beyond what a role
   * already forbids: a `svc_test_` key is refused them (Stripe's rule: test keys never touch live).
   */
  readonly testKeys?: boolean;
  /**
   * False for operations of test mode only (the sandbox identity provider): a `svc_live_` key is
   * refused them. Mode-bearing objects need no flag: the store finds them only in the caller's mode.
   */
  readonly liveKeys?: boolean;
  /** Inference that is metered: every request leaves a usage row, refused ones included. */
  readonly metered?: boolean;
  /**
   * The wire protocol the operation speaks, which shapes its errors: `openai` (the default),
   * `anthropic` (the Messages API), or `anthropic-if-asked`: Anthropic's when the request carries
   * `anthropic-version` (what Anthropic's SDKs send), as `GET /models` does for them.
   */
  readonly protocol?: 'openai' | 'anthropic' | 'anthropic-if-asked';
  /** Success status; 200 unless said. */
  readonly successStatus?: 200 | 201 | 202 | 204;
  readonly summary: string;
  readonly description?: string;
  /**
   * The error codes this operation answers beyond those its declaration implies (body, auth,
   * roles, modes, metering: see errorCodesOf); listed in the OpenAPI document.
   */
  readonly errors?: readonly ErrorCode[];
}

export type AnyOperation = OperationDefinition<string, FieldsSchema, FieldsSchema, FieldsSchema, z.ZodType>;

export function defineOperation<
  const Id extends string,
  P extends FieldsSchema = FieldsSchema,
  Q extends FieldsSchema = FieldsSchema,
  B extends FieldsSchema = FieldsSchema,
  R extends z.ZodType = z.ZodType,
>(op: OperationDefinition<Id, P, Q, B, R>): OperationDefinition<Id, P, Q, B, R> {
  return op;
}

type Schema<O, K extends 'params' | 'query' | 'body' | 'response'> = O extends { readonly [key in K]?: infer S }
  ? S extends z.ZodType
    ? S
    : never
  : never;

/** Validated (output) shapes, as a handler receives them. */
export type ParamsOf<O> = [Schema<O, 'params'>] extends [never] ? Record<string, never> : z.output<Schema<O, 'params'>>;
export type QueryOf<O> = [Schema<O, 'query'>] extends [never] ? Record<string, never> : z.output<Schema<O, 'query'>>;
export type BodyOf<O> = [Schema<O, 'body'>] extends [never] ? Record<string, never> : z.output<Schema<O, 'body'>>;
/** Input shapes, as a client sends them (defaults may be left out). */
export type ParamsInput<O> = [Schema<O, 'params'>] extends [never] ? Record<string, unknown> : z.input<Schema<O, 'params'>>;
export type QueryInput<O> = [Schema<O, 'query'>] extends [never] ? Record<string, unknown> : z.input<Schema<O, 'query'>>;
export type BodyInput<O> = [Schema<O, 'body'>] extends [never] ? Record<string, unknown> : z.input<Schema<O, 'body'>>;
/** The answer of a contract operation; `unknown` for an operation known only by its manifest. */
export type ResponseOf<O> = [Schema<O, 'response'>] extends [never] ? unknown : z.output<Schema<O, 'response'>>;

/** Names of the path placeholders in the order they appear. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\+?\}/g)].map((m) => m[1] as string);
}
