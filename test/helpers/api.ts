import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { z } from 'zod';
import type { AppCreateBody } from '../../src/contract/schemas/apps.js';
import { creditsToMicro } from '../../server/store/money.js';
import { startTestServer, type TestServer } from './server.js';

export const API = '/api/v1';

type Response = Awaited<ReturnType<TestServer['call']>>;

/** `/api/v1/developer/apps/{app_uuid}/…rest`. */
export function appPath(appUuid: string, ...rest: string[]): string {
  return [`${API}/developer/apps/${appUuid}`, ...rest].join('/');
}

/**
 * A fresh server (in-memory database, manual clock) for every test of the calling file, or with
 * `scope: 'file'` one for all of them (for tests that change nothing another test reads). The
 * returned object stands for the current test's server, so tests read `t.call(…)`.
 */
export function useTestServer(options: Parameters<typeof startTestServer>[0] = {}, { scope = 'test' }: { scope?: 'test' | 'file' } = {}): TestServer {
  let current: TestServer | undefined;
  const start = async () => {
    current = await startTestServer(options);
  };
  const stop = async () => {
    await current?.close();
    current = undefined;
  };
  if (scope === 'file') {
    beforeAll(start);
    afterAll(stop);
  } else {
    beforeEach(start);
    afterEach(stop);
  }
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!current) throw new Error('the test server only exists inside a test');
      return Reflect.get(current, property);
    },
  });
}

/** Anthropic's error type for each of the gateway's (docs.anthropic.com, Errors), as its SDKs read them. */
const ANTHROPIC_TYPES: Record<string, string> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  insufficient_credits: 'billing_error',
  permission_denied: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit_exceeded: 'rate_limit_error',
};

/**
 * Asserts an error answer of a route that speaks Anthropic's protocol: the status, the exact
 * body `{type: "error", error: {type, message, code?, param?}, request_id}` with the request id
 * of the `request-id` header, and Anthropic's name for the gateway's error type.
 */
function expectAnthropicError(response: Response, expected: { type?: string; code?: string | null; param?: string | null }): void {
  expect(Object.keys(response.body).sort()).toEqual(['error', 'request_id', 'type']);
  expect(response.body.type).toBe('error');
  expect(response.body.request_id).toBe(response.headers.get('request-id'));
  const error = response.body.error;
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  if (expected.type !== undefined) expect(error.type).toBe(ANTHROPIC_TYPES[expected.type] ?? 'api_error');
  if (expected.code !== undefined) expect(error.code ?? null).toBe(expected.code);
  if (expected.param !== undefined) expect(error.param ?? null).toBe(expected.param);
}

/**
 * Asserts an error answer: the status, the exact OpenAI-shaped body
 * `{error: {message, type, code, param}}`, and whichever of type/code/param are given. A route
 * that speaks Anthropic's protocol (`/messages`) is held to Anthropic's shape instead.
 */
export function expectApiError(
  response: Response,
  status: number,
  expected: { type?: string; code?: string | null; param?: string | null } = {},
): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
  if (response.body?.type === 'error') return expectAnthropicError(response, expected);
  expect(Object.keys(response.body ?? {})).toEqual(['error']);
  const error = response.body.error;
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(typeof error.type).toBe('string');
  expect(error.code === null || typeof error.code === 'string').toBe(true);
  expect(error.param === null || typeof error.param === 'string').toBe(true);
  expect(error).toMatchObject(expected);
}

/** Call options that sign in with an identity token (and no API key). */
export const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });

/** GET /credits/balance as the token's user. */
export const balanceWith = (t: TestServer, token: string) => t.call('GET', `${API}/credits/balance`, bearer(token));

/** A small chat completion as the token's user. */
export const chatWith = (t: TestServer, token: string, model = 'local/echo', max_tokens = 20) =>
  t.call('POST', `${API}/chat/completions`, {
    ...bearer(token),
    body: { model, max_tokens, messages: [{ role: 'user', content: 'hello' }] },
  });

/** Asserts a success status, showing the error body when it is not. */
export function expectStatus(response: Response, status: number): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
}

/** A random wallet address in mixed case (the API answers in lower case). */
export function randomAddress(): string {
  const hex = randomBytes(20).toString('hex');
  return `0x${[...hex].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('')}`;
}

/** A syntactically valid API key that was never issued. */
export function unknownApiKey(kind: 'live' | 'test' = 'live'): string {
  return `svc_${kind}_${'A'.repeat(40)}`;
}

type AppFields = Partial<z.input<typeof AppCreateBody>>;

/**
 * Creates an app for a developer directly through the services (no HTTP), optionally holding a
 * starting balance, so tests can set up funded apps without a payment flow.
 */
export async function createAppDirectly(
  t: TestServer,
  developerId: string,
  options: AppFields & { balanceCredits?: number } = {},
) {
  const { balanceCredits = 0, ...fields } = options;
  return t.server.services.apps.create(
    developerId,
    {
      name: fields.name ?? 'Test app',
      app_type: fields.app_type ?? 'standard',
      default_user_credits: fields.default_user_credits ?? 0,
      allowed_origins: fields.allowed_origins ?? [],
    },
    balanceCredits > 0
      ? { amountMicro: creditsToMicro(balanceCredits), kind: 'operator_grant', idempotencyKey: `test-grant:${randomUUID()}` }
      : undefined,
  );
}

/** The bootstrap developer's id (the owner of `t.appUuid`, `t.liveKey`, `t.testKey`). */
export function ownerId(t: TestServer): string {
  const bootstrap = t.server.bootstrap;
  if (!bootstrap) throw new Error('expected a bootstrapped server');
  return bootstrap.developerId;
}

/** A funded app of the owner, created without HTTP. */
export async function createOwnerApp(t: TestServer, options: AppFields & { balanceCredits?: number } = {}) {
  return createAppDirectly(t, ownerId(t), options);
}

/** A second developer account with one app and a live key for it. */
export async function addDeveloper(t: TestServer, name = 'developer-b') {
  const developer = await t.server.store.developers.create({
    id: `dev_${randomUUID().replaceAll('-', '')}`,
    name,
    createdAt: t.clock.now().toISOString(),
  });
  const app = await createAppDirectly(t, developer.id, { name: `${name} app` });
  const key = await t.server.services.apiKeys.create(app.appUuid, { name: 'b key', is_test: false, role: 'admin' });
  return { developerId: developer.id, appUuid: app.appUuid, key: key.secret };
}

/** An operator grant to the promotions account, which pays developers' claims (empty on a new server). */
export async function fundPromotions(t: TestServer, credits: number) {
  await t.server.store.credits.grant(
    { kind: 'promotions' },
    { amountMicro: creditsToMicro(credits), kind: 'operator_grant', idempotencyKey: `test-promotions:${randomUUID()}`, at: t.clock.now().toISOString() },
  );
}

/** Creates an app through the API and returns its body. */
export async function createApp(t: TestServer, body: Record<string, unknown> = {}, key?: string) {
  const response = await t.call('POST', `${API}/developer/apps`, { body: { name: 'My app', ...body }, key });
  expectStatus(response, 201);
  return response.body;
}

/** Creates an API key through the API and returns its body (with `secret`). */
export async function createKey(t: TestServer, appUuid: string, body: Record<string, unknown> = {}) {
  const response = await t.call('POST', appPath(appUuid, 'api-keys'), { body });
  expectStatus(response, 201);
  return response.body;
}

/** The app as the API shows it. */
export async function getApp(t: TestServer, appUuid: string) {
  const response = await t.call('GET', appPath(appUuid));
  expectStatus(response, 200);
  return response.body;
}

/**
 * An end user of an app, signed in through the sandbox identity provider: the app gets a
 * `sandbox_` identity-provider id (no verification key needed) and a test key issues the token.
 * `developerKey` is the key that configures the app (the owner's live key by default).
 */
export async function sandboxUser(t: TestServer, appUuid: string = t.appUuid, developerKey?: string) {
  expectStatus(await t.call('PUT', appPath(appUuid, 'idp'), { key: developerKey, body: { idp_app_id: `sandbox_${appUuid}` } }), 200);
  const testKey = appUuid === t.appUuid ? t.testKey : (await t.server.services.apiKeys.create(appUuid, { name: 'sandbox', is_test: true })).secret;
  const issued = await t.call('POST', `${API}/sandbox/identity-token`, { key: testKey, body: {} });
  expectStatus(issued, 200);
  const token = issued.body.token as string;
  return { token, address: issued.body.address as string, as: bearer(token) };
}

/**
 * After a client went away mid-stream: waits for the request's usage row (its settlement lands
 * right after the abort: wait on the answer, not on time), then checks that nothing is held and
 * that the balance moved by exactly what the row says was produced. Returns the row.
 */
export async function expectChargedForProduced(server: TestServer, expected: { model: string; output_tokens: number }) {
  let usage;
  do {
    usage = await server.call('GET', `${API}/usage/models`);
  } while (usage.body.data.length === 0);
  const row = usage.body.data[0];
  expect(row).toMatchObject({ ...expected, requests: 1 });
  const balanceAfter = await server.call('GET', `${API}/credits/balance`);
  expect(balanceAfter.body.held_credits).toBe(0);
  expect(Math.round(balanceAfter.body.credits * 1e6)).toBe(100_000_000 - Math.round(row.credits * 1e6));
  return row;
}
