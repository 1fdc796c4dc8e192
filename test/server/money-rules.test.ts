import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLedger, grantCredits } from '../../server/operator.js';
import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import type { ProviderAdapter } from '../../server/providers/types.js';
import {
  API,
  appPath,
  createOwnerApp,
  expectApiError,
  expectStatus,
  fundPromotions,
  randomAddress,
  sandboxUser,
  useTestServer,
} from '../helpers/api.js';
import { tempDir, removeTempDirs } from '../helpers/cli.js';
import { openRequest } from '../helpers/raw-http.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * No credit from nothing (ARCHITECTURE.md §6): live money only through a configured processor, rewards
 * paid by a sponsor, holds that cover every input, a usage row for every inference request, and
 * a conservation check that proves it.
 */
afterEach(() => removeTempDirs());

const pay = async (url: string) => (await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status;
const balanceOf = async (t: TestServer, key?: string) => (await t.call('GET', `${API}/credits/balance`, { key })).body.credits as number;

describe('payment modes', () => {
  it('live payments off (the default without Stripe): live checkouts are a 503 that says what to do; test mode still pays', async () => {
    const t = await startTestServer({ payments: 'off' });
    try {
      expect((await t.call('GET', '/health', { key: null })).body.payments).toBe('off');
      for (const [path, body] of [
        [`${API}/credits/purchase`, { credits: 500 }],
        [appPath(t.appUuid, 'fund'), { credits: 500 }],
        [`${API}/subscriptions/checkout-session`, { tier: 'starter', interval: 'month' }],
      ] as const) {
        const refused = await t.call('POST', path, { body });
        expectApiError(refused, 503, { code: 'payments_not_configured' });
        expect(refused.body.error.message).toMatch(/STRIPE_SECRET_KEY.*svc admin credits grant/s);
      }
      expect((await t.call('GET', `${API}/developer/billing`)).body.total).toBe(0);

      // Test mode: a test key and a sandbox user buy play money into their test balances.
      const bought = await t.call('POST', `${API}/credits/purchase`, { key: t.testKey, body: { credits: 500 } });
      expectStatus(bought, 201);
      expect(bought.body.livemode).toBe(false);
      expect(await pay(bought.body.url)).toBe(200);
      expect(await balanceOf(t, t.testKey)).toBe(500);
      const user = await sandboxUser(t);
      const userSession = await t.call('POST', `${API}/credits/purchase`, { ...user.as, body: { credits: 1200 } });
      expect(await pay(userSession.body.url)).toBe(200);
      expect((await t.call('GET', `${API}/credits/balance`, user.as)).body.credits).toBe(1200);
      const subscription = await t.call('POST', `${API}/subscriptions/checkout-session`, { ...user.as, body: { tier: 'starter', interval: 'month' } });
      expectStatus(subscription, 201);
      expect(await pay(subscription.body.url)).toBe(200);
      expect((await t.call('GET', `${API}/credits/balance`, user.as)).body.credits).toBe(2200);
      // No live balance moved, and the live ledger still balances.
      expect(await balanceOf(t)).toBe(100);
      expect(await checkConservationOf(t)).toMatchObject({ ok: true });
    } finally {
      await t.close();
    }
  });

  it('--payments sandbox (development): live purchases through the sandbox page, and /health says so', async () => {
    const t = await startTestServer({ payments: 'sandbox' });
    try {
      expect((await t.call('GET', '/health', { key: null })).body.payments).toBe('sandbox');
      const session = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
      expect(session.body.livemode).toBe(true);
      expect(await pay(session.body.url)).toBe(200);
      expect(await balanceOf(t)).toBe(600);
    } finally {
      await t.close();
    }
  });

  it('refuses to start on an unknown SVC_PAYMENTS, and stripe without its keys', async () => {
    await expect(startTestServer({ payments: undefined, env: { SVC_PAYMENTS: 'free' } })).rejects.toThrow(/SVC_PAYMENTS must be one of/);
    await expect(startTestServer({ payments: 'stripe' })).rejects.toThrow(/needs STRIPE_SECRET_KEY/);
  });
});

async function checkConservationOf(t: TestServer) {
  const { checkConservation } = await import('../../server/services/conservation.js');
  return checkConservation(t.server.store);
}

describe('sponsored rewards', () => {
  const t = useTestServer();

  it("a developer's claims come from the promotions account: empty on a new server, a 402 that says who funds it", async () => {
    const refused = await t.call('POST', `${API}/credits/claim-daily`);
    expectApiError(refused, 402, { code: 'sponsor_cannot_pay' });
    expect(refused.body.error.message).toMatch(/promotions account.*svc admin credits grant --promotions/s);
    expect(await balanceOf(t)).toBe(100);
    await fundPromotions(t, 15);
    expectStatus(await t.call('POST', `${API}/credits/claim-daily`), 200);
    expect(await balanceOf(t)).toBe(110);
    const promotions = await t.server.store.metering.balance({ kind: 'promotions' });
    expect(promotions.balanceMicro).toBe(5_000_000);
    expect(await checkConservationOf(t)).toMatchObject({ ok: true });
  });

  it("an end user's claims and rewards come from the app's balance; the app can turn them off", async () => {
    const app = await createOwnerApp(t, { balanceCredits: 15 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'admin', is_test: false, role: 'admin' })).secret;
    const { token } = await realUser(t, app.appUuid, key);
    const as = { key: null, headers: { authorization: `Bearer ${token}` } };
    expectStatus(await t.call('POST', `${API}/credits/claim-daily`, as), 200);
    expect((await t.call('GET', `${API}/credits/balance`, as)).body.credits).toBe(10);
    expect((await t.call('GET', appPath(app.appUuid))).body.balance_credits).toBe(5);
    // The next user's claim: the app has 5 credits, the claim is 10.
    const second = await realUser(t, app.appUuid, key, true);
    const short = await t.call('POST', `${API}/credits/claim-daily`, { key: null, headers: { authorization: `Bearer ${second.token}` } });
    expectApiError(short, 402, { code: 'sponsor_cannot_pay' });
    expect(short.body.error.message).toMatch(/developer must fund the app/);
    // Turned off: a 403 before anything moves.
    expectStatus(await t.call('PATCH', appPath(app.appUuid), { body: { user_claims: false } }), 200);
    expectApiError(await t.call('POST', `${API}/credits/claim-daily`, as), 403, { code: 'user_claims_disabled' });
    expectApiError(await t.call('POST', `${API}/credits/claim-task`, { ...as, body: { task_type: 'save_first_memory', memories: 1 } }), 403, {
      code: 'user_claims_disabled',
    });
    expect(await checkConservationOf(t)).toMatchObject({ ok: true });
  });
});

/** A real (not sandbox) end user of an app, signed with a key the test holds. */
async function realUser(t: TestServer, appUuid: string, key: string, reuse = false) {
  const { exportSPKI, generateKeyPair, SignJWT } = await import('jose');
  const state = realUser as unknown as { pair?: Awaited<ReturnType<typeof generateKeyPair>> };
  if (!reuse || !state.pair) {
    state.pair = await generateKeyPair('ES256', { extractable: true });
    const body = { idp_app_id: `idp-${appUuid}`, idp_verification_key: await exportSPKI(state.pair.publicKey) };
    expectStatus(await t.call('PUT', appPath(appUuid, 'idp'), { key, body }), 200);
  }
  const now = Math.floor(t.clock.now().getTime() / 1000);
  const token = await new SignJWT({ linked_accounts: JSON.stringify([{ type: 'wallet', address: randomAddress() }]) })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setIssuer('privy.io')
    .setAudience(`idp-${appUuid}`)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(state.pair.privateKey);
  return { token };
}

/** The local echo adapter, counting the calls that reach it. */
function countingAdapter(): ProviderAdapter & { calls: number } {
  const local = createLocalAdapter();
  const counting = {
    calls: 0,
    chat: (call: Parameters<ProviderAdapter['chat']>[0]) => {
      counting.calls++;
      return local.chat(call);
    },
    chatStream: (call: Parameters<ProviderAdapter['chatStream']>[0]) => {
      counting.calls++;
      return local.chatStream(call);
    },
  };
  return counting;
}

describe('holds that cover every input', () => {
  const adapter = countingAdapter();
  const t = useTestServer({ providers: [pricedProvider(adapter)] });

  const imageMessage = (parts: unknown[]) => ({ model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: parts }] });

  it('an image on a balance that cannot cover it is a 402 before any upstream call, with its usage row', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 10 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;
    const before = adapter.calls;
    const refused = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: imageMessage([{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]),
    });
    expectApiError(refused, 402, { code: 'insufficient_credits' });
    // paid/echo has an 8,192-token window: the image counts as much as the model can read.
    expect(refused.body.error.message).toMatch(/8192 input tokens/);
    expect(adapter.calls).toBe(before);
    const usage = await t.call('GET', appPath(app.appUuid, 'usage'));
    expect(usage.body.totals).toMatchObject({ requests: 1, refused_requests: 1, credits: 0 });
    expect((await t.call('GET', appPath(app.appUuid))).body.balance_credits).toBe(10);
  });

  it('audio and files count by their size; text alone goes through', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 10 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;
    const audio = Buffer.alloc(60_000).toString('base64');
    const refusedAudio = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: imageMessage([{ type: 'input_audio', input_audio: { data: audio, format: 'wav' } }]),
    });
    expectApiError(refusedAudio, 402);
    // 600 tokens of audio (60 KB at ten tokens per KB) and the request's framing (bounded in bytes).
    expect(refusedAudio.body.error.message).toMatch(/6[0-4]\d input tokens/);
    const file = `data:application/pdf;base64,${Buffer.alloc(3_000).toString('base64')}`;
    const refusedFile = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: imageMessage([{ type: 'file', file: { filename: 'a.pdf', file_data: file } }]),
    });
    expectApiError(refusedFile, 402);
    expectStatus(await t.call('POST', `${API}/chat/completions`, { key, body: imageMessage([{ type: 'text', text: 'hi' }]) }), 200);
  });

  it('a Responses request with an image is held the same way', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 10 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;
    const refused = await t.call('POST', `${API}/responses`, {
      key,
      body: {
        model: 'paid/echo',
        max_output_tokens: 10,
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/cat.png' }] }],
      },
    });
    expectApiError(refused, 402);
  });
});

describe('every inference request leaves a usage row', () => {
  const t = useTestServer({ rateLimitRequestsPerMinute: 2, providers: [pricedProvider()] });

  it('refused ones too: 403 for a test key on a paid model, 429 over the rate limit, with why', async () => {
    const chat = (key?: string) =>
      t.call('POST', `${API}/chat/completions`, { key, body: { model: 'paid/echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } });
    expectApiError(await chat(t.testKey), 403, { code: 'test_key_not_allowed' });
    expectStatus(await chat(), 200);
    expectStatus(await chat(), 200);
    expectApiError(await chat(), 429);
    // The owner key has spent its two requests this minute: the report is read with another key.
    const reader = (await t.server.services.apiKeys.create(t.appUuid, { name: 'reader', is_test: false, role: 'read_only' })).secret;
    const report = await t.call('GET', appPath(t.appUuid, 'usage'), { key: reader });
    expectStatus(report, 200);
    expect(report.body.models).toEqual([
      expect.objectContaining({ model: 'paid/echo', requests: 3, refused_requests: 1 }),
    ]);
    // The test key's refusal is test usage: a test key's report shows it.
    const testReader = (await t.server.services.apiKeys.create(t.appUuid, { name: 'test reader', is_test: true, role: 'read_only' })).secret;
    const testReport = await t.call('GET', appPath(t.appUuid, 'usage'), { key: testReader });
    expect(testReport.body.models).toEqual([expect.objectContaining({ model: 'paid/echo', requests: 1, refused_requests: 1 })]);
  });
});

describe('the conservation check', () => {
  it('passes on a sound ledger, and fails on credits raised behind its back or from no source', async () => {
    const dir = tempDir();
    const db = join(dir, 'server.db');
    const t = await startTestServer({ dbPath: db });
    await fundPromotions(t, 50);
    expectStatus(await t.call('POST', `${API}/credits/claim-daily`), 200);
    expectStatus(
      await t.call('POST', `${API}/chat/completions`, { body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] } }),
      200,
    );
    // A deleted app's credits move to another app: still live money with a source.
    const doomed = await createOwnerApp(t, { balanceCredits: 5 });
    expectStatus(await t.call('DELETE', appPath(doomed.appUuid), { body: { move_balance_to: t.appUuid } }), 200);
    await t.close();
    expect(statSync(db).mode & 0o777).toBe(0o600);

    const sound = await checkLedger(db);
    expect(sound.problems).toEqual([]);
    expect(sound.ok).toBe(true);
    expect(sound.figures).toMatchObject({ sources: { operator_grant: '155000000' }, liveBalances: '155000000' });

    const raw = new Database(db);
    raw.prepare('UPDATE accounts SET balance_micro = balance_micro + 7 WHERE id = (SELECT account_id FROM apps LIMIT 1)').run();
    raw.close();
    const raised = await checkLedger(db);
    expect(raised.ok).toBe(false);
    expect(raised.problems.join('\n')).toMatch(/off by 7/);

    const again = new Database(db);
    again.prepare('UPDATE accounts SET balance_micro = balance_micro - 7 WHERE id = (SELECT account_id FROM apps LIMIT 1)').run();
    // A matching entry, but of a kind that is no source of credits.
    const account = (again.prepare('SELECT account_id FROM apps LIMIT 1').get() as { account_id: number }).account_id;
    again.prepare("UPDATE accounts SET balance_micro = balance_micro + 1000 WHERE id = ?").run(account);
    again
      .prepare(
        `INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, created_at)
         VALUES (?, 1000, (SELECT balance_micro FROM accounts WHERE id = ?), 'free_money', 'x', '2026-03-01T12:00:00.000Z')`,
      )
      .run(account, account);
    again.close();
    const unsourced = await checkLedger(db);
    expect(unsourced.ok).toBe(false);
    expect(unsourced.problems.join('\n')).toMatch(/'free_money', which is no source/);
  });

  it('refuses a grant that would take a balance past 2^53 micro-credits', async () => {
    const db = join(tempDir(), 'server.db');
    const t = await startTestServer({ dbPath: db });
    const appUuid = t.appUuid;
    await t.close();
    for (let i = 0; i < 9; i++) await grantCredits(db, { target: { appUuid }, credits: 1_000_000_000 });
    await expect(grantCredits(db, { target: { appUuid }, credits: 1_000_000_000 })).rejects.toThrow(/2\^53/);
    expect((await checkLedger(db)).ok).toBe(true);
  });
});

describe('connections', () => {
  it('a client that hangs up mid-body is logged as a closed connection, not as a bug', async () => {
    const lines: string[] = [];
    const t = await startTestServer({ log: (line) => lines.push(line) });
    try {
      const { req, response } = openRequest(t.url, 'POST', `${API}/chat/completions`, {
        'x-api-key': t.liveKey,
        'content-type': 'application/json',
        'content-length': 1000,
      });
      response.catch(() => {});
      // Hang up once the server is reading the body: the first part is flushed, and the server
      // has had a moment of I/O to take it in (no clock is involved in what is asserted).
      await new Promise<void>((resolve) => req.write('{"model":"local/echo","messages":[', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20));
      req.destroy();
      await waitFor(() => lines.length > 0);
      expect(lines.join('\n')).toMatch(/client closed the connection mid-request/);
      expect(lines.join('\n')).not.toMatch(/bug|unexpected error/);
    } finally {
      await t.close();
    }
  });
});

/** Polls a condition the server reaches on its own (a log line after a socket closed). */
async function waitFor(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  // Then by the wall clock, generously: a loaded machine may take seconds to close and log.
  const deadline = Date.now() + 15_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

