import { describe, expect, it } from 'vitest';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { buildManifest, type OperationManifest } from '../../src/contract/manifest.js';
import { describeRoles, KEY_ROLES, type KeyRole } from '../../src/contract/operation.js';
import {
  addDeveloper,
  API,
  appPath,
  bearer,
  createOwnerApp,
  expectApiError,
  expectStatus,
  randomAddress,
  sandboxUser,
  useTestServer,
} from '../helpers/api.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Who may do what (ARCHITECTURE.md §5), tried as an attacker would: every key role against every
 * operation, test keys against everything live, one developer against another's objects, and end
 * users against each other.
 */
const manifest = buildManifest();
const keyed = manifest.filter((op) => op.auth.includes('api_key'));

/** A path with well-formed arguments: the caller's own app, ids that look right. */
function pathFor(op: OperationManifest, appUuid: string): string {
  const values: Record<string, string> = {
    app_uuid: appUuid,
    key_id: 'key_doesNotExist0000',
    address: randomAddress().toLowerCase(),
    channel: 'sms',
    id: op.path.startsWith('/responses') ? 'resp_doesNotExist' : 'assistant',
  };
  const path = op.path.replace(/\{([a-z_]+)\+?\}/g, (_, name: string) => values[name] ?? 'x');
  return op.absolutePath ? path : `${API}${path}`;
}

const newKey = async (t: TestServer, role: KeyRole, isTest = false, appUuid = t.appUuid) =>
  (await t.server.services.apiKeys.create(appUuid, { name: `${role}${isTest ? ' test' : ''}`, role, is_test: isTest })).secret;

const ROLE_CODES = ['insufficient_role', 'test_key_forbidden', 'test_key_required'];

describe('each role × each operation', () => {
  const t = useTestServer();

  for (const op of keyed) {
    it(`${op.id}: allowed to ${op.roles.join(', ')}${op.testKeys ? '' : ' (live only)'}${op.liveKeys ? '' : ' (test only)'}; refused to the others with a 403 that names the role`, async () => {
      // Destructive operations run last, with the admin key.
      const callers: { role: KeyRole; isTest: boolean }[] = [
        ...KEY_ROLES.filter((role) => role !== 'admin').flatMap((role) => [
          { role, isTest: true },
          { role, isTest: false },
        ]),
        { role: 'admin', isTest: false },
      ];
      for (const caller of callers) {
        const key = caller.role === 'admin' ? t.liveKey : await newKey(t, caller.role, caller.isTest);
        const response = await t.call(op.method, pathFor(op, t.appUuid), { key, ...(op.hasBody ? { body: {} } : {}) });
        const who = `${caller.role}${caller.isTest ? ' test' : ''} key on ${op.id}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
        // 503 is an answer too: a feature this server has not configured (the points program).
        if (response.status !== 503) expect(response.status, who).toBeLessThan(500);
        const allowed = op.roles.includes(caller.role) && (caller.isTest ? op.testKeys : op.liveKeys);
        if (allowed) {
          expect(ROLE_CODES, who).not.toContain(response.body?.error?.code);
        } else {
          expectApiError(response, 403, { type: 'permission_denied' });
          expect(ROLE_CODES, who).toContain(response.body.error.code);
          if (!op.roles.includes(caller.role)) expect(response.body.error.message, who).toContain(describeRoles(op.roles));
        }
      }
    });
  }

  it('checks the role before reading the body: a forbidden call is a 403 whatever it carries', async () => {
    const inference = await newKey(t, 'inference');
    for (const rawBody of ['{not json', '[[[[[[[[', 'x'.repeat(100_000)]) {
      const response = await t.call('POST', `${API}/developer/apps`, { key: inference, rawBody, headers: { 'content-type': 'text/plain' } });
      expectApiError(response, 403, { code: 'insufficient_role' });
      expect(response.body.error.message).toMatch(/needs an admin key/);
    }
  });
});

describe('what each role can do, end to end', () => {
  const t = useTestServer();

  it('an inference key: inference, catalogs, its balance, text channels; nothing of developer …', async () => {
    const key = await newKey(t, 'inference');
    const chat = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: { model: 'local/echo', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
    });
    expectStatus(chat, 200);
    expectStatus(await t.call('GET', `${API}/models`, { key }), 200);
    expectStatus(await t.call('GET', `${API}/credits/balance`, { key }), 200);
    expectStatus(await t.call('POST', `${API}/text/sms/register`, { key, body: { identifier: '+14155550123' } }), 200);
    expectApiError(await t.call('GET', `${API}/developer/apps`, { key }), 403, { code: 'insufficient_role' });
    expectApiError(await t.call('GET', appPath(t.appUuid, 'api-keys'), { key }), 403, { code: 'insufficient_role' });
    expectApiError(await t.call('POST', appPath(t.appUuid, 'api-keys'), { key, body: { role: 'admin' } }), 403);
    expectApiError(await t.call('POST', `${API}/credits/claim-daily`, { key }), 403);
  });

  it('a read_only key: reads every object, never a secret; changes nothing and runs no inference', async () => {
    const key = await newKey(t, 'read_only');
    const keys = await t.call('GET', appPath(t.appUuid, 'api-keys'), { key });
    expectStatus(keys, 200);
    expect(keys.body.data.map((k: { role: string }) => k.role).sort()).toEqual(['admin', 'inference', 'read_only']);
    expect(JSON.stringify(keys.body)).not.toMatch(/svc_(live|test)_[A-Za-z0-9]{40}/);
    for (const path of [`${API}/developer/apps`, appPath(t.appUuid), appPath(t.appUuid, 'users'), appPath(t.appUuid, 'usage'), `${API}/developer/billing`]) {
      expectStatus(await t.call('GET', path, { key }), 200);
    }
    expectApiError(await t.call('PATCH', appPath(t.appUuid), { key, body: { name: 'x' } }), 403);
    expectApiError(await t.call('DELETE', appPath(t.appUuid), { key }), 403);
    const chat = await t.call('POST', `${API}/chat/completions`, { key, body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] } });
    expectApiError(chat, 403, { code: 'insufficient_role' });
    expect((await t.call('GET', appPath(t.appUuid))).body.name).toBe('Default app');
  });

  it('an admin key creates keys of each role; every key shows its role; the default is inference', async () => {
    for (const role of KEY_ROLES) {
      const created = await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: { name: role, role } });
      expectStatus(created, 201);
      expect(created.body.role).toBe(role);
    }
    expect((await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: {} })).body.role).toBe('inference');
    const listed = await t.call('GET', `${appPath(t.appUuid, 'api-keys')}?limit=100`);
    expect(listed.body.data.every((k: { role: string }) => KEY_ROLES.includes(k.role as KeyRole))).toBe(true);
    expectApiError(await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: { role: 'owner' } }), 400, { param: 'role' });
  });

  it('the first key of a server is admin, its test key inference', async () => {
    const listed = await t.call('GET', appPath(t.appUuid, 'api-keys'));
    expect(listed.body.data.map((k: { is_test: boolean; role: string }) => [k.is_test, k.role]).sort()).toEqual([
      [false, 'admin'],
      [true, 'inference'],
    ]);
  });
});

describe('test keys are kept from live objects', () => {
  const t = useTestServer();

  it('an admin test key cannot be issued, by the API or behind its back', async () => {
    expectApiError(await t.call('POST', appPath(t.appUuid, 'api-keys'), { body: { is_test: true, role: 'admin' } }), 400, {
      param: 'role',
      code: 'test_key_cannot_be_admin',
    });
    await expect(newKey(t, 'admin', true)).rejects.toMatchObject({ status: 400 });
    // The database refuses one too.
    await expect(
      t.server.store.apiKeys.create({
        keyId: 'key_sneaky0000000000000',
        appUuid: t.appUuid,
        name: 'sneaky',
        isTest: true,
        role: 'admin',
        prefix: 'svc_test_AAAA…',
        secretHash: 'ab'.repeat(32),
        at: t.clock.now().toISOString(),
      }),
    ).rejects.toThrow(/cannot be admin/);
  });

  it('a test key changes no live object and moves no live credit', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 50 });
    const before = (await t.call('GET', appPath(app.appUuid))).body;
    const address = randomAddress();
    const attempts: [string, string, unknown?][] = [
      ['POST', appPath(app.appUuid, 'api-keys'), { is_test: false }],
      ['DELETE', appPath(app.appUuid, 'api-keys', 'key_abc')],
      ['PATCH', appPath(app.appUuid), { name: 'changed' }],
      ['DELETE', appPath(app.appUuid)],
      ['PUT', appPath(app.appUuid, 'idp'), { idp_app_id: 'sandbox_mine' }],
      ['DELETE', appPath(app.appUuid, 'idp')],
      ['POST', appPath(app.appUuid, 'fund'), { credits: 10 }],
      ['POST', appPath(app.appUuid, 'users', address, 'top-up'), { credits: 10 }],
      ['PATCH', appPath(app.appUuid, 'users', address), { credits: 10 }],
      ['POST', `${API}/credits/claim-daily`],
      ['POST', `${API}/credits/claim-task`, { task_type: 'first_chat' }],
      ['POST', `${API}/subscriptions/checkout-session`, { tier: 'pro', interval: 'month' }],
      ['POST', `${API}/subscriptions/cancel`],
    ];
    for (const role of ['inference', 'read_only'] as const) {
      const key = await newKey(t, role, true, app.appUuid);
      for (const [method, path, body] of attempts) {
        const response = await t.call(method, path, { key, ...(body === undefined ? {} : { body }) });
        expectApiError(response, 403, { type: 'permission_denied' });
      }
    }
    expect((await t.call('GET', appPath(app.appUuid))).body).toEqual(before);
  });

  it('a test key buys play money: into its test balance, through the sandbox, never the live one', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 50 });
    const key = await newKey(t, 'inference', true, app.appUuid);
    const session = await t.call('POST', `${API}/credits/purchase`, { key, body: { credits: 500 } });
    expectStatus(session, 201);
    expect(session.body.livemode).toBe(false);
    expect((await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(200);
    expect((await t.call('GET', `${API}/credits/balance`, { key })).body.credits).toBe(500);
    expect((await t.call('GET', appPath(app.appUuid))).body.balance_credits).toBe(50);
  });
});

describe('developers apart', () => {
  const t = useTestServer();

  /** A body each operation accepts, so that only ownership can refuse it. */
  const VALID_BODIES: Record<string, unknown> = {
    'developer.apps.update': { name: 'stolen' },
    'developer.apps.fund': { credits: 10 },
    'developer.apps.api-keys.create': { role: 'admin' },
    'developer.apps.idp.create': { idp_app_id: 'sandbox_stolen' },
    'developer.apps.users.top-up': { credits: 1 },
    'developer.apps.users.update': { credits: 5 },
  };

  it("every developer operation on another developer's app is a 404, as if it did not exist, and changes nothing", async () => {
    const b = await addDeveloper(t);
    const address = randomAddress();
    expectStatus(await t.call('POST', appPath(t.appUuid, 'users', address, 'top-up'), { body: { credits: 1 } }), 200);
    const before = (await t.call('GET', appPath(t.appUuid))).body;
    const ownKeys = (await t.call('GET', appPath(t.appUuid, 'api-keys'))).body.data;
    const scoped = keyed.filter((op) => op.params.some((p) => p.name === 'app_uuid'));
    expect(scoped.length).toBeGreaterThanOrEqual(15);
    for (const op of scoped) {
      for (const key of [b.key, await newKey(t, 'read_only', false, b.appUuid)]) {
        const path = pathFor(op, t.appUuid)
          .replace(/\/users\/0x[0-9a-f]{40}/, `/users/${address.toLowerCase()}`)
          .replace(/key_doesNotExist0000/, ownKeys[0].key_id);
        const body = VALID_BODIES[op.id];
        const response = await t.call(op.method, path, { key, ...(body !== undefined ? { body } : op.hasBody ? { body: {} } : {}) });
        const who = `${op.id}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
        if (response.body?.error?.code === 'insufficient_role') continue; // a read_only key on a change
        expect(response.status, who).toBe(404);
        expect(response.body.error.code, who).toBe('app_not_found');
      }
    }
    expect((await t.call('GET', appPath(t.appUuid))).body).toEqual(before);
    expect((await t.call('GET', appPath(t.appUuid, 'api-keys'))).body.data).toEqual(ownKeys);
  });

  it('lists, billing and usage show only their own objects', async () => {
    const b = await addDeveloper(t);
    const funding = await t.call('POST', appPath(t.appUuid, 'fund'), { body: { credits: 500 } });
    expectStatus(funding, 201);
    const apps = await t.call('GET', `${API}/developer/apps`, { key: b.key });
    expect(apps.body.data.map((a: { app_uuid: string }) => a.app_uuid)).toEqual([b.appUuid]);
    expect((await t.call('GET', `${API}/developer/billing`, { key: b.key })).body.total).toBe(0);
    expect((await t.call('GET', `${API}/developer/billing`)).body.total).toBe(1);
  });

  it("cannot reach another developer's key or user through its own app", async () => {
    const b = await addDeveloper(t);
    const mine = (await t.call('GET', appPath(t.appUuid, 'api-keys'))).body.data[0];
    expectApiError(await t.call('DELETE', appPath(b.appUuid, 'api-keys', mine.key_id), { key: b.key }), 404);
    const address = randomAddress();
    expectStatus(await t.call('POST', appPath(t.appUuid, 'users', address, 'top-up'), { body: { credits: 1 } }), 200);
    expectApiError(await t.call('GET', appPath(b.appUuid, 'users', address), { key: b.key }), 404);
  });

  it('identity-provider ids are unique per developer, not first-come across the server', async () => {
    const b = await addDeveloper(t);
    const other = await createOwnerApp(t);
    expectStatus(await t.call('PUT', appPath(t.appUuid, 'idp'), { body: { idp_app_id: 'sandbox_shared' } }), 200);
    expectStatus(await t.call('PUT', appPath(b.appUuid, 'idp'), { key: b.key, body: { idp_app_id: 'sandbox_shared' } }), 200);
    expectApiError(await t.call('PUT', appPath(other.appUuid, 'idp'), { body: { idp_app_id: 'sandbox_shared' } }), 409, {
      code: 'idp_app_id_taken',
    });
  });
});

describe('identity tokens across apps', () => {
  const t = useTestServer();

  async function realIdp(appUuid: string, idpAppId: string) {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const body = { idp_app_id: idpAppId, idp_verification_key: await exportSPKI(pair.publicKey) };
    expectStatus(await t.call('PUT', appPath(appUuid, 'idp'), { body }), 200);
    return pair;
  }

  const tokenFor = (privateKey: Parameters<SignJWT['sign']>[0], aud: string, claims: Record<string, unknown> = {}) => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    return new SignJWT({ linked_accounts: JSON.stringify([{ type: 'wallet', address: randomAddress() }]), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer('privy.io')
      .setAudience(aud)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
  };

  // Two developers naming one identity provider, and which app a token goes to: identity-hijack.test.ts.
  it('tells a stranger nothing: an unknown audience and a forged signature get the same answer', async () => {
    const mine = await realIdp(t.appUuid, 'known-idp');
    const forger = await generateKeyPair('ES256', { extractable: true });
    const answers = [
      await t.call('GET', `${API}/credits/balance`, bearer(await tokenFor(forger.privateKey, 'known-idp'))),
      await t.call('GET', `${API}/credits/balance`, bearer(await tokenFor(forger.privateKey, 'unknown-idp'))),
      await t.call('GET', `${API}/credits/balance`, bearer(await tokenFor(mine.privateKey, 'unknown-idp'))),
      await t.call('GET', `${API}/credits/balance`, bearer('a.b.c')),
    ];
    for (const answer of answers) expectApiError(answer, 401);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(JSON.stringify(answers[0]?.body)).not.toContain(t.appUuid);
  });

  it('a token whose wallet is not a 0x address is a 401', async () => {
    const mine = await realIdp(t.appUuid, 'wallets-idp');
    for (const address of ['0x12', `0x${'g'.repeat(40)}`, '../../etc', `0x${'a'.repeat(40)}/x`]) {
      const token = await tokenFor(mine.privateKey, 'wallets-idp', { linked_accounts: JSON.stringify([{ type: 'wallet', address }]) });
      expectApiError(await t.call('GET', `${API}/credits/balance`, bearer(token)), 401, { code: 'invalid_identity_token' });
    }
    expect((await t.call('GET', appPath(t.appUuid, 'users'))).body.total).toBe(0);
  });
});

describe('end users stay inside their app', () => {
  const t = useTestServer();

  /** Another user of the same sandbox app. */
  async function otherUser() {
    const issued = await t.call('POST', `${API}/sandbox/identity-token`, { key: t.testKey, body: { address: randomAddress() } });
    expectStatus(issued, 200);
    return bearer(issued.body.token as string);
  }

  it("cannot read or cancel another user's response, nor the app's", async () => {
    const alice = await sandboxUser(t);
    const bob = await otherUser();
    const started = await t.call('POST', `${API}/responses`, { ...alice.as, body: { model: 'local/echo', input: 'hi', background: true } });
    expectStatus(started, 200);
    const id = started.body.id as string;
    expectStatus(await t.call('GET', `${API}/responses/${id}`, alice.as), 200);
    expectApiError(await t.call('GET', `${API}/responses/${id}`, bob), 404);
    expectApiError(await t.call('POST', `${API}/responses/${id}/cancel`, bob), 404);
    expectApiError(await t.call('GET', `${API}/responses/${id}`, { key: t.liveKey }), 404);
    // its input items the same: only the user who made it
    expectStatus(await t.call('GET', `${API}/responses/${id}/input_items`, alice.as), 200);
    expectApiError(await t.call('GET', `${API}/responses/${id}/input_items`, bob), 404);
    expectApiError(await t.call('GET', `${API}/responses/${id}/input_items`, { key: t.liveKey }), 404);
  });

  it('/config tells each caller who it is: its own app, role and mode', async () => {
    const caller = async (as: { key?: string | null; headers?: Record<string, string> }) => {
      const answer = await t.call('GET', `${API}/config`, as);
      expectStatus(answer, 200);
      return answer.body.caller;
    };
    const alice = await sandboxUser(t);
    expect(await caller(alice.as)).toEqual({ kind: 'user', app_uuid: t.appUuid, role: null, livemode: false });
    const readOnly = await newKey(t, 'read_only');
    expect(await caller({ key: readOnly })).toEqual({ kind: 'api_key', app_uuid: t.appUuid, role: 'read_only', livemode: true });
    const b = await addDeveloper(t);
    expect(await caller({ key: b.key })).toMatchObject({ kind: 'api_key', app_uuid: b.appUuid, livemode: true });
  });

  it("sees its own balance and text registration, never another user's", async () => {
    const alice = await sandboxUser(t);
    const bob = await otherUser();
    expectStatus(await t.call('POST', `${API}/text/sms/register`, { ...alice.as, body: { identifier: '+14155550123' } }), 200);
    expect((await t.call('GET', `${API}/text/sms/status`, bob)).body.registered).toBe(false);
    expectApiError(await t.call('DELETE', `${API}/text/sms/unregister`, bob), 404);
    expectApiError(await t.call('POST', `${API}/text/sms/register`, { ...bob, body: { identifier: '+14155550123' } }), 409);
    expect((await t.call('GET', `${API}/text/sms/status`, alice.as)).body.identifier).toBe('+14155550123');
  });

  it('cannot call developer operations at all', async () => {
    const alice = await sandboxUser(t);
    for (const op of manifest.filter((o) => o.id.startsWith('developer.'))) {
      const response = await t.call(op.method, pathFor(op, t.appUuid), { ...alice.as, ...(op.hasBody ? { body: {} } : {}) });
      expectApiError(response, 403, { type: 'permission_denied' });
    }
  });
});

describe('bodies that cannot hurt', () => {
  const t = useTestServer();

  it('JSON nested deeper than 64 levels is a 400 before anything reads it', async () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const messages = (content: string) => `{"model":"local/echo","messages":[{"role":"user","content":${content}}]}`;
    const tooDeep = await t.call('POST', `${API}/chat/completions`, { rawBody: messages(deep(70)), headers: { 'content-type': 'application/json' } });
    expectApiError(tooDeep, 400, { code: 'json_too_deep' });
    const huge = await t.call('POST', `${API}/chat/completions`, { rawBody: deep(200_000), headers: { 'content-type': 'application/json' } });
    expectApiError(huge, 400, { code: 'json_too_deep' });
    // Brackets inside strings are text, not nesting.
    const inString = await t.call('POST', `${API}/chat/completions`, {
      rawBody: messages(JSON.stringify('['.repeat(500))),
      headers: { 'content-type': 'application/json' },
    });
    expectStatus(inString, 200);
  });
});
