import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { explain, removeTempDirs, runSvc, startServe, tempDir, type ServeProcess } from '../helpers/cli.js';
import {
  completedEvent,
  costOfUsage,
  createTally,
  reportSeedOnFailure,
  runPool,
  seededRandom,
  seedFromEnv,
  signedEvent,
  toMicro,
  withLedgerFile,
  type LedgerFile,
  type Random,
} from '../helpers/reliability.js';

/**
 * `kill -9` of `svc serve` (the built bundle, as a real child process on a database file) in the
 * middle of a load that grants credits (purchases and app funding paid through the sandbox
 * checkout, daily and task claims, user top-ups) and spends them (chat completions on a priced
 * upstream). Every request answered 2xx before the kill was acknowledged to its client, so:
 *
 * - the ledger must be consistent (`svc serve --check` exits 0) and nothing below zero;
 * - every acknowledged grant and charge is in the ledger exactly once;
 * - every operation cut short is all or nothing (a session is complete exactly when credited;
 *   a top-up has both of its entries or neither);
 * - the server restarts on the file, and paying or re-reporting an acknowledged payment — the
 *   sandbox page again, or signed completion events, new and re-sent — credits nothing more.
 *
 * The kill lands after a seeded number of acknowledgements. Replay with SVC_RELIABILITY_SEED.
 */

const SEED = seedFromEnv(20_260_302);
const CONCURRENCY = 16;
const APPS = 6;
/** The upstream model, priced as the other test models: 0.1 credit an input token, 0.2 an output token. */
const MODEL = 'paid/gpt-fake';
/**
 * After the restart, signed events are re-delivered through an in-process server on the same
 * file, whose webhook secret the test sets (as SVC_PAYMENT_WEBHOOK_SECRET does for `svc serve`).
 */
const SECRET = 'whsec_crash_test_0123456789abcdef';

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** One HTTP call; `null` when the connection failed (the server died: outcome unknown). */
async function send(url: string, init: { method: string; key?: string; body?: unknown }): Promise<Answer | null> {
  try {
    const response = await fetch(url, {
      method: init.method,
      redirect: 'manual',
      headers: { ...(init.key ? { 'x-api-key': init.key } : {}), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // an HTML page (the sandbox checkout)
    }
    return { status: response.status, body, headers: response.headers };
  } catch {
    return null;
  }
}

const children: ServeProcess[] = [];
let upstream: FakeOpenAI | undefined;
afterEach(async () => {
  // A failed test must not leave a server behind.
  for (const child of children.splice(0)) if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
});
afterAll(removeTempDirs);

describe('a server killed with SIGKILL mid-load', () => {
  it('loses no acknowledged grant or charge, doubles none, and restarts consistent', { timeout: 120_000 }, async () => {
    reportSeedOnFailure('crash test', SEED);
    const random = seededRandom(SEED);
    const home = tempDir('svc-crash-');
    const db = join(tempDir('svc-crash-db-'), 'server.db');
    upstream = await startFakeOpenAI({ apiKey: 'sk-crash-0123456789' });
    const providers = join(home, 'providers.json');
    writeFileSync(
      providers,
      JSON.stringify({
        providers: [
          {
            id: 'paid',
            type: 'openai',
            base_url: upstream.url,
            api_key_env: 'PAID_API_KEY',
            models: [{ id: 'gpt-fake', input_price: 1000, output_price: 2000 }],
          },
        ],
      }),
    );
    const serveArgs = ['--port', '0', '--db', db, '--providers', providers, '--starting-credits', '5000'];
    const serveOptions = { home, env: { PAID_API_KEY: upstream.apiKey } };
    const serve = async () => {
      const started = await startServe(serveArgs, serveOptions);
      children.push(started);
      return started;
    };

    // ---- first life: set up, load, kill -9 after N acknowledgements ----------------------------
    const first = await serve();
    const ownerKey = /live key: (svc_live_\S+)/.exec(first.stdout())?.[1];
    if (!ownerKey) throw new Error(`no live key printed:\n${first.stdout()}`);
    const load = createLoad(first.url, ownerKey, random);
    await load.setUp();
    const killAfter = random.int(150, 450);
    await load.run(killAfter, () => first.child.kill('SIGKILL'));
    expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(load.acknowledged(), 'the load was still running at the kill').toBeGreaterThanOrEqual(killAfter);
    console.log(`crash test seed ${SEED}: killed after ${load.acknowledged()} acknowledgements; ${load.summary()}`);

    // ---- the file as the kill left it ----------------------------------------------------------
    const check = await runSvc(['serve', '--check', '--db', db], { home });
    expect(check.code, explain(check)).toBe(0);
    expect(await withLedgerFile(db, load.compare), `seed ${SEED}: acknowledged work against the ledger`).toEqual({
      negatives: 0,
      sessions: [],
      claims: [],
      topUps: [],
      charges: [],
    });
    const totalBefore = await withLedgerFile(db, (ledger) => ledger.totalMicro());

    // ---- second life: the same file serves again; paying again changes nothing -----------------
    const second = await serve();
    expect(second.stdout(), 'a restart must not bootstrap again').not.toMatch(/svc_live_/);
    const repaid = await Promise.all(
      load.paidSessions().map((session) => send(`${session.url.replace(first.url, second.url)}/pay`, { method: 'POST' })),
    );
    expect(repaid.filter((r) => r?.status !== 409 || r.body?.error?.code !== 'already_paid')).toEqual([]);
    expect(await withLedgerFile(db, (ledger) => load.appBalancesMatch(second.url, ledger))).toEqual([]);
    expect(await second.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    // ---- the processor re-reports every acknowledged payment: nothing more is credited ---------
    // A new completion event for every paid session; and every event the receiver recorded, sent
    // again (which session an event named is not stored: each re-sent one names a paid session).
    const paid = load.paidSessions();
    const recorded = await withLedgerFile(db, (ledger) => ledger.eventIds());
    const deliveries = [
      ...paid.map((session, i) => completedEvent(`evt_redelivery_${i}`, session.id)),
      ...recorded.map((eventId, i) => completedEvent(eventId, paid[i % paid.length]!.id)),
    ];
    const receiver = await startServer({ dbPath: db, port: 0, providers: [], env: {}, paymentWebhookSecret: SECRET, log: () => {} });
    try {
      const now = Math.floor(Date.now() / 1000);
      const statuses = await Promise.all(
        deliveries.map(async (event) => {
          const { payload, signature } = signedEvent(event, SECRET, now);
          const response = await fetch(`${receiver.url}/api/v1/subscriptions/webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'stripe-signature': signature },
            body: payload,
          });
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(await receiver.store.credits.check()).toEqual([]);
    } finally {
      await receiver.close();
    }
    expect(await withLedgerFile(db, (ledger) => ledger.totalMicro()), 'credits granted by re-reported payments').toBe(totalBefore);
    expect(await withLedgerFile(db, load.compare), `seed ${SEED}: after re-delivery`).toMatchObject({ negatives: 0, sessions: [] });
    const recheck = await runSvc(['serve', '--check', '--db', db], { home });
    expect(recheck.code, explain(recheck)).toBe(0);
  });
});

/** The load on a `svc serve` at `url`: what was sent, and what was acknowledged (answered 2xx). */
function createLoad(url: string, ownerKey: string, random: Random) {
  const api = (path: string) => `${url}/api/v1${path}`;
  const apps: { appUuid: string; key: string; users: string[] }[] = [];
  let defaultApp: { appUuid: string; key: string } | undefined;
  let acks = 0;
  let killed = false;
  const { count, summary } = createTally();

  // What the load did. A session is `acked` once its payment was answered 2xx.
  const sessions: { id: string; url: string; appUuid: string; creditsMicro: number; acked: boolean }[] = [];
  const claims: { appUuid: string; key: string }[] = [];
  const topUps = new Map<string, { appUuid: string; address: string; sent: number; acked: number }>();
  const chats: { requestId: string; appUuid: string; costMicro: number }[] = [];

  async function payFor(session: Answer | null, appUuid: string, credits: number) {
    if (session?.status !== 201) return;
    const record = { id: session.body.id as string, url: session.body.url as string, appUuid, creditsMicro: toMicro(credits), acked: false };
    sessions.push(record);
    const paid = await send(`${record.url}/pay`, { method: 'POST' });
    count(`pay ${paid?.status ?? 'lost'}`);
    if (paid?.status === 200 || paid?.status === 303) {
      record.acked = true;
      acks += 1;
    }
  }

  /** One operation, chosen by the seeded PRNG. */
  function nextOperation(): () => Promise<void> {
    const app = random.pick(apps);
    switch (random.weighted({ buy: 30, fund: 10, claimDaily: 8, claimTask: 8, topUp: 16, chat: 28 })) {
      case 'buy': {
        const credits = random.chance(0.3) ? random.pick([500, 1200]) : random.int(100, 400);
        return async () => payFor(await send(api('/credits/purchase'), { method: 'POST', key: app.key, body: { credits } }), app.appUuid, credits);
      }
      case 'fund': {
        const credits = random.int(100, 300);
        return async () =>
          payFor(await send(api(`/developer/apps/${app.appUuid}/fund`), { method: 'POST', key: ownerKey, body: { credits } }), app.appUuid, credits);
      }
      case 'claimDaily':
        return async () => {
          const answer = await send(api('/credits/claim-daily'), { method: 'POST', key: app.key });
          count(`claim-daily ${answer?.status ?? 'lost'}`);
          if (answer?.status !== 200) return;
          // The day claimed is the one before the next claim opens.
          const day = new Date(Date.parse(answer.body.next_claim_at) - 86_400_000).toISOString().slice(0, 10);
          claims.push({ appUuid: app.appUuid, key: `claim-daily:${day}` });
          acks += 1;
        };
      case 'claimTask': {
        const task = random.pick(['save_first_memory', 'save_ten_memories']);
        return async () => {
          const answer = await send(api('/credits/claim-task'), { method: 'POST', key: app.key, body: { task_type: task, memories: 12 } });
          count(`claim-task ${answer?.status ?? 'lost'}`);
          if (answer?.status !== 200) return;
          claims.push({ appUuid: app.appUuid, key: `task:${task}` });
          acks += 1;
        };
      }
      case 'topUp': {
        const address = random.pick(app.users);
        const credits = random.int(1, 5);
        return async () => {
          const record = topUps.get(`${app.appUuid}/${address}`) ?? { appUuid: app.appUuid, address, sent: 0, acked: 0 };
          topUps.set(`${app.appUuid}/${address}`, record);
          record.sent += 1;
          const answer = await send(api(`/developer/apps/${app.appUuid}/users/${address}/top-up`), { method: 'POST', key: ownerKey, body: { credits } });
          count(`top-up ${answer?.status ?? 'lost'}`);
          // A refusal (402: the app has not been funded yet) surely moved nothing.
          if (answer?.status === 402) record.sent -= 1;
          if (answer?.status !== 200) return;
          record.acked += 1;
          acks += 1;
        };
      }
      case 'chat': {
        // On the default app, funded from the start with far more than the requests in flight
        // hold: what is checked here is that charges survive the kill, not how holds race
        // (test/reliability/holds.test.ts).
        const payer = defaultApp!;
        const body = { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `spend ${random.hex(6)} credits` }] };
        return async () => {
          const answer = await send(api('/chat/completions'), { method: 'POST', key: payer.key, body });
          count(`chat ${answer?.status ?? 'lost'}`);
          if (answer?.status !== 200) return;
          chats.push({ requestId: answer.headers.get('x-request-id') ?? '', appUuid: payer.appUuid, costMicro: costOfUsage(answer.body.usage) });
          acks += 1;
        };
      }
    }
    throw new Error('unreachable');
  }

  return {
    async setUp() {
      const list = await send(api('/developer/apps'), { method: 'GET', key: ownerKey });
      const appUuid = list?.body?.data?.[0]?.app_uuid as string;
      // The default app's key is the owner's: every call of the load counts against its rate limit.
      const patched = await send(api(`/developer/apps/${appUuid}`), { method: 'PATCH', key: ownerKey, body: { rate_limit_rpm: 1_000_000 } });
      expect(patched?.status).toBe(200);
      defaultApp = { appUuid, key: ownerKey };
      for (let i = 0; i < APPS; i++) {
        const created = await send(api('/developer/apps'), { method: 'POST', key: ownerKey, body: { name: `crash ${i}`, rate_limit_rpm: 1_000_000 } });
        expect(created?.status).toBe(201);
        const key = await send(api(`/developer/apps/${created!.body.app_uuid}/api-keys`), { method: 'POST', key: ownerKey, body: { name: 'load' } });
        expect(key?.status).toBe(201);
        apps.push({ appUuid: created!.body.app_uuid, key: key!.body.secret, users: [0, 1, 2].map(() => `0x${random.hex(40)}`) });
      }
    },

    /** Runs operations until `killAfter` acknowledgements, then calls `kill` and drains. */
    async run(killAfter: number, kill: () => void) {
      await runPool(CONCURRENCY, () => {
        if (killed) return undefined;
        const operation = nextOperation();
        return async () => {
          await operation();
          if (!killed && acks >= killAfter) {
            killed = true;
            kill();
          }
        };
      });
    },

    acknowledged: () => acks,
    summary,
    paidSessions: () => sessions.filter((s) => s.acked),

    /** What the ledger holds against what was sent and acknowledged. */
    compare(ledger: LedgerFile) {
      const pairs = (key: string) => ledger.entries(key).map((e) => ({ accountId: e.accountId, amountMicro: e.amountMicro }));
      // Every session: complete exactly when credited (once, to its app, its amount); an
      // acknowledged one is complete.
      const sessionProblems = sessions.flatMap((s) => {
        const status = ledger.session(s.id)?.status;
        const credited = pairs(`checkout:${s.id}`);
        const want = status === 'complete' ? [{ accountId: ledger.appAccount(s.appUuid), amountMicro: s.creditsMicro }] : [];
        const sound = JSON.stringify(credited) === JSON.stringify(want) && (!s.acked || status === 'complete');
        return sound ? [] : [{ session: s.id, acked: s.acked, status, credited }];
      });
      const claimProblems = claims.filter((c) => ledger.entries(c.key).filter((e) => e.accountId === ledger.appAccount(c.appUuid)).length !== 1);
      // Top-up keys are random per top-up: count them. Each is two entries that cancel out.
      const topUpProblems = [...topUps.values()].flatMap((t) => {
        const user = ledger.findUserAccount(t.appUuid, t.address); // undefined: no top-up reached it
        const keys = user === undefined ? [] : ledger.entriesOf(user, 'user_top_up').map((e) => e.idempotencyKey);
        const halves = keys.map((key) => ledger.entries(key).reduce((sum, e) => sum + e.amountMicro, 0));
        const sound = keys.length >= t.acked && keys.length <= t.sent && halves.every((total) => total === 0) && keys.every((k) => ledger.entries(k).length === 2);
        return sound ? [] : [{ ...t, entries: keys.length }];
      });
      const chargeProblems = chats.flatMap((c) => {
        const got = pairs(`usage:${c.requestId}`);
        const want = [{ accountId: ledger.appAccount(c.appUuid), amountMicro: -c.costMicro }];
        return JSON.stringify(got) === JSON.stringify(want) ? [] : [{ ...c, got }];
      });
      return { negatives: ledger.negatives(), sessions: sessionProblems, claims: claimProblems, topUps: topUpProblems, charges: chargeProblems };
    },

    /** Apps whose balance as the restarted server reports it is not the one in the file. */
    async appBalancesMatch(serverUrl: string, ledger: LedgerFile) {
      const problems = [];
      for (const app of [defaultApp!, ...apps]) {
        const answer = await send(`${serverUrl}/api/v1/developer/apps/${app.appUuid}`, { method: 'GET', key: ownerKey });
        const inFile = ledger.balance(ledger.appAccount(app.appUuid));
        if (toMicro(answer?.body?.balance_credits) !== inFile) problems.push({ app: app.appUuid, api: answer?.body?.balance_credits, file: inFile });
      }
      return problems;
    },
  };
}
