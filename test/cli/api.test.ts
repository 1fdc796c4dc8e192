import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { explain, runSvc, useApiCli } from '../helpers/cli.js';

const cli = useApiCli();
const { home } = cli;

/** `svc api <words…>` against the test server with its live key; asserts exit 0 and returns the one JSON line. */
async function api(...words: string[]): Promise<any> {
  const result = await cli.run(words);
  expect(result.code, explain(result)).toBe(0);
  expect(result.stderr).toBe('');
  return result.json();
}

/** The same, for a call expected to fail with an API error (exit 1): returns the error body from stderr. */
async function apiError(...words: string[]): Promise<any> {
  const result = await cli.run(words);
  expect(result.code, explain(result)).toBe(1);
  expect(result.stdout).toBe('');
  return result.errorJson();
}

/** A wallet address in mixed case. */
function mixedCaseAddress(): string {
  const hex = randomBytes(20).toString('hex');
  return `0x${[...hex].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('')}`;
}

describe('svc api developer apps', () => {
  it('creates, lists, gets, updates and deletes an app', async () => {
    const created = await api(
      'developer', 'apps', 'create',
      '--name', 'cli app',
      '--allowed-origins', 'https://a.com,https://b.com',
      '--default-user-credits', '2.5',
      '--app-type', 'pooled_api',
    );
    expect(created).toMatchObject({
      name: 'cli app',
      app_type: 'pooled_api',
      default_user_credits: 2.5,
      allowed_origins: ['https://a.com', 'https://b.com'],
      balance_credits: 0,
    });
    expect(created.app_uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const appUuid: string = created.app_uuid;

    const list = await api('developer', 'apps', 'list');
    expect(list).toMatchObject({ limit: 50, offset: 0 });
    expect(list.data.map((a: { app_uuid: string }) => a.app_uuid)).toEqual(expect.arrayContaining([cli.server.appUuid, appUuid]));
    expect(list.total).toBe(list.data.length);

    const page = await api('developer', 'apps', 'list', '--limit', '1', '--offset', '1');
    expect(page).toMatchObject({ limit: 1, offset: 1, total: list.total });
    expect(page.data).toHaveLength(1);

    expect(await api('developer', 'apps', 'get', appUuid)).toEqual(created);

    const renamed = await api('developer', 'apps', 'update', appUuid, '--name', 'renamed', '--default-user-credits', '7');
    expect(renamed).toMatchObject({ app_uuid: appUuid, name: 'renamed', default_user_credits: 7 });
    // allowed_origins omitted: left as it was.
    expect(renamed.allowed_origins).toEqual(['https://a.com', 'https://b.com']);

    // A JSON array works for a list flag too, and [] clears it.
    const reset = await api('developer', 'apps', 'update', appUuid, '--allowed-origins', '["https://c.com"]');
    expect(reset.allowed_origins).toEqual(['https://c.com']);
    const cleared = await api('developer', 'apps', 'update', appUuid, '--allowed-origins', '[]');
    expect(cleared.allowed_origins).toEqual([]);

    expect(await api('developer', 'apps', 'get', appUuid)).toMatchObject({ name: 'renamed', default_user_credits: 7, allowed_origins: [] });

    const deleted = await api('developer', 'apps', 'delete', appUuid);
    expect(deleted).toMatchObject({ id: appUuid, deleted: true });
    expect((await apiError('developer', 'apps', 'get', appUuid)).error.type).toBe('not_found');
  });

  it('takes the body from --json', async () => {
    const created = await api('developer', 'apps', 'create', '--json', '{"name":"x","allowed_origins":["https://j.com"]}');
    expect(created).toMatchObject({ name: 'x', allowed_origins: ['https://j.com'] });
  });

  it('lets flags override fields of --json', async () => {
    const created = await api(
      'developer', 'apps', 'create',
      '--json', '{"name":"from-json","default_user_credits":3}',
      '--name', 'from-flag',
    );
    expect(created).toMatchObject({ name: 'from-flag', default_user_credits: 3 });

    const updated = await api('developer', 'apps', 'update', created.app_uuid, '--json', '{"name":"a","default_user_credits":4}', '--default-user-credits', '9');
    expect(updated).toMatchObject({ name: 'a', default_user_credits: 9 });
  });

  it('prints exactly one line of compact JSON per result when piped', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'get', cli.server.appUuid, '--api-url', cli.server.url], {
      home,
      env: { SVC_API_KEY: cli.server.liveKey },
    });
    expect(result.code, explain(result)).toBe(0);
    const app = JSON.parse(result.stdout);
    expect(result.stdout).toBe(`${JSON.stringify(app)}\n`);
    expect(app.app_uuid).toBe(cli.server.appUuid);
  });
});

describe('svc api developer apps api-keys', () => {
  it('creates a live and a test key, lists them without secrets, and deletes one', async () => {
    const { app_uuid: appUuid } = await api('developer', 'apps', 'create', '--name', 'keys app');

    const live = await api('developer', 'apps', 'api-keys', 'create', appUuid, '--name', 'ci', '--role', 'read_only');
    expect(live).toMatchObject({ name: 'ci', is_test: false, role: 'read_only' });
    expect(live.secret).toMatch(/^svc_live_/);
    const test = await api('developer', 'apps', 'api-keys', 'create', appUuid, '--name', 'sandbox', '--is-test');
    expect(test).toMatchObject({ name: 'sandbox', is_test: true, role: 'inference' });
    expect(test.secret).toMatch(/^svc_test_/);

    const listed = await runSvc(['api', 'developer', 'apps', 'api-keys', 'list', appUuid, '--api-url', cli.server.url], {
      home,
      env: { SVC_API_KEY: cli.server.liveKey },
    });
    expect(listed.code, explain(listed)).toBe(0);
    const list = listed.json();
    expect(list.data.map((k: { key_id: string }) => k.key_id).sort()).toEqual([live.key_id, test.key_id].sort());
    expect(listed.stdout).not.toContain(live.secret);
    expect(listed.stdout).not.toContain(test.secret);
    for (const key of list.data) expect(key).not.toHaveProperty('secret');

    // The new key works from the CLI, until it is deleted.
    const asNewKey = () =>
      runSvc(['api', 'developer', 'apps', 'list', '--api-url', cli.server.url], { home, env: { SVC_API_KEY: live.secret } });
    expect((await asNewKey()).code).toBe(0);

    expect(await api('developer', 'apps', 'api-keys', 'delete', appUuid, live.key_id)).toMatchObject({ id: live.key_id, deleted: true });
    const after = await api('developer', 'apps', 'api-keys', 'list', appUuid);
    expect(after.data.map((k: { key_id: string }) => k.key_id)).toEqual([test.key_id]);

    const refused = await asNewKey();
    expect(refused.code, explain(refused)).toBe(1);
    expect(refused.errorJson().error.type).toBe('authentication_error');
  });
});

describe('svc api developer apps idp', () => {
  const pemPublicKey = (type: 'ec' | 'rsa') => {
    const { publicKey } =
      type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
    return publicKey.export({ type: 'spki', format: 'pem' }).toString();
  };

  it('sets the identity-provider configuration from a PEM public key, and removes it', async () => {
    const { app_uuid: appUuid } = await api('developer', 'apps', 'create', '--name', 'idp app');
    const idpAppId = `idp-${randomBytes(6).toString('hex')}`;
    // `--flag=value`: the PEM starts with "-----"; the next test gives it as `--flag value`.
    const set = await api('developer', 'apps', 'idp', 'create', appUuid, '--idp-app-id', idpAppId, `--idp-verification-key=${pemPublicKey('ec')}`);
    expect(set).toMatchObject({ app_uuid: appUuid, idp_app_id: idpAppId });
    expect(await api('developer', 'apps', 'get', appUuid)).toMatchObject({ idp_configured: true, idp_app_id: idpAppId });

    expect(await api('developer', 'apps', 'idp', 'delete', appUuid)).toMatchObject({ deleted: true });
    expect(await api('developer', 'apps', 'get', appUuid)).toMatchObject({ idp_configured: false, idp_app_id: null });
    // Nothing left to delete.
    expect((await apiError('developer', 'apps', 'idp', 'delete', appUuid)).error.type).toBe('not_found');
  });

  it('takes the PEM key through --json as well', async () => {
    const { app_uuid: appUuid } = await api('developer', 'apps', 'create', '--name', 'idp json');
    const body = JSON.stringify({ idp_app_id: `idp-${randomBytes(6).toString('hex')}`, idp_verification_key: pemPublicKey('ec') });
    expect(await api('developer', 'apps', 'idp', 'create', appUuid, '--json', body)).toMatchObject({ app_uuid: appUuid });
  });

  it('takes the PEM key as the argument after --idp-verification-key', async () => {
    const { app_uuid: appUuid } = await api('developer', 'apps', 'create', '--name', 'idp spaced');
    const set = await api('developer', 'apps', 'idp', 'create', appUuid, '--idp-app-id', `idp-${randomBytes(6).toString('hex')}`, '--idp-verification-key', pemPublicKey('ec'));
    expect(set).toMatchObject({ app_uuid: appUuid });
  });

  it('passes the server’s 400 through for a key that is not EC P-256', async () => {
    const { app_uuid: appUuid } = await api('developer', 'apps', 'create', '--name', 'idp rsa');
    const error = await apiError('developer', 'apps', 'idp', 'create', appUuid, '--idp-app-id', 'rsa', `--idp-verification-key=${pemPublicKey('rsa')}`);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'idp_verification_key' });
  });
});

describe('svc api developer apps users', () => {
  it('tops up an unknown address (creating the user), gets, lists and updates it', async () => {
    const address = mixedCaseAddress();
    const lower = address.toLowerCase();
    expect(address).not.toBe(lower);
    const appUuid = cli.server.appUuid; // the default app has a balance to move credits from

    const before = (await api('developer', 'apps', 'get', appUuid)).balance_credits as number;
    const topped = await api('developer', 'apps', 'users', 'top-up', appUuid, address, '--credits', '5');
    expect(topped).toMatchObject({ address: lower, credits: 5 });
    expect((await api('developer', 'apps', 'get', appUuid)).balance_credits).toBe(before - 5);

    expect(await api('developer', 'apps', 'users', 'get', appUuid, address)).toMatchObject({ address: lower, credits: 5 });

    const list = await api('developer', 'apps', 'users', 'list', appUuid);
    expect(list).toMatchObject({ limit: 50, offset: 0 });
    expect(list.data.map((u: { address: string }) => u.address)).toContain(lower);

    const limited = await api('developer', 'apps', 'users', 'update', appUuid, address, '--credits', '10');
    expect(limited).toMatchObject({ address: lower, credits: 5, credit_limit: 10 });
    // `--credits null` lifts the limit (the field is nullable).
    expect(await api('developer', 'apps', 'users', 'update', appUuid, lower, '--credits', 'null')).toMatchObject({ credit_limit: null });
  });

  it('answers not_found for an address that was never seen', async () => {
    const error = await apiError('developer', 'apps', 'users', 'get', cli.server.appUuid, mixedCaseAddress());
    expect(error.error.type).toBe('not_found');
  });
});

describe('svc api for inference', () => {
  const messages = JSON.stringify([{ role: 'user', content: 'hello from the cli' }]);

  it('chat completions: flags and a JSON messages list', async () => {
    const completion = await api('chat', 'completions', '--model', 'local/echo', '--messages', messages);
    expect(completion.choices[0].message.content).toContain('hello from the cli');
  });

  it('chat completions --stream: one JSON chunk per line, then exit 0', async () => {
    const result = await cli.run(['chat', 'completions', '--model', 'local/echo', '--messages', messages, '--stream']);
    expect(result.code, explain(result)).toBe(0);
    const chunks = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toContain('hello from the cli');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('responses create takes --input as text', async () => {
    const response = await api('responses', 'create', '--model', 'local/echo', '--input', 'hello, responses');
    expect(response.output[0].content[0].text).toContain('hello, responses');
  });

  it('embeddings create takes --input as text, or as a JSON list', async () => {
    const one = await api('embeddings', 'create', '--model', 'local/embed', '--input', 'hello, world');
    expect(one.data).toHaveLength(1);
    const two = await api('embeddings', 'create', '--model', 'local/embed', '--input', '["a","b"]', '--dimensions', '16');
    expect(two.data.map((d: { embedding: number[] }) => d.embedding.length)).toEqual([16, 16]);
  });

  it('models list and usage models', async () => {
    expect((await api('models', 'list', '--provider', 'local')).data.map((m: { id: string }) => m.id)).toEqual(['local/echo', 'local/embed']);
    expect(await api('usage', 'models', '--period', '7d')).toMatchObject({ data: expect.any(Array) });
  });
});
