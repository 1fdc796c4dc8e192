import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';
import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import { checkConservation } from '../../server/services/conservation.js';
import type { ProviderAdapter } from '../../server/providers/types.js';
import { API, appPath, bearer, createOwnerApp, expectStatus, fundPromotions } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import {
  completedEvent,
  costOfUsage,
  createTally,
  MICRO,
  PAID_OUTPUT_MICRO,
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
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Thousands of mixed money operations against the real server, chosen by a seeded PRNG and run
 * 16 at a time: daily and task claims, purchases and app funding paid, cancelled or completed by
 * signed webhook events (duplicated, raced, forged, for unknown sessions), inference that spends,
 * and user top-ups. The run goes in rounds; between rounds the injected clock moves on a few
 * hours, so daily claims recur and checkout sessions expire.
 *
 * Two judges afterwards. The server's own consistency check (every balance equals the sum of its
 * entries) must find nothing. And an independent model kept by the test — what each answer
 * granted or charged, and what it must have been told — must equal every balance, every session's
 * state and every ledger entry read straight from the database file.
 *
 * Within a round each checkout session sees at most one operation that can change it (pay,
 * cancel, a new completion event), so the model knows each answer in advance; races on one
 * session are still covered by the operations that fire several identical requests at once.
 * Replay a failure with SVC_RELIABILITY_SEED=<seed>.
 */

const SEED = seedFromEnv(20_260_301);
const ROUNDS = 50;
const OPS_PER_ROUND = 48; // 2,400 operations
const CONCURRENCY = 16;
const SECRET = 'whsec_reliability_0123456789abcdef';
const HOUR = 3_600_000;
const DAILY_MICRO = 10 * MICRO;
const TASK_REWARD_MICRO: Record<string, number> = { first_chat: 2 * MICRO, save_first_memory: 5 * MICRO, save_ten_memories: 20 * MICRO };

const WEIGHTS = {
  chat: 30,
  claimDaily: 8,
  claimTask: 6,
  purchase: 7,
  fund: 3,
  pay: 8,
  cancel: 4,
  deliver: 7,
  redeliver: 4,
  forged: 4,
  unknownSession: 2,
  topUp: 7,
  grant: 3,
  imageChat: 4,
  testPurchase: 3,
};

/** Where credits land: `app:<uuid>` or `user:<uuid>/<address>`. */
type Account = string;

interface AppActor {
  kind: 'app';
  appUuid: string;
  key: string;
  pooled: boolean;
  defaultUserMicro: number;
  account: Account;
  idp: { idpAppId: string; privateKey: CryptoKey } | null;
}
interface UserActor {
  kind: 'user';
  app: AppActor;
  address: string;
  account: Account;
}
type Actor = AppActor | UserActor;

interface Session {
  id: string;
  url: string;
  /** Who the session credits when paid. */
  account: Account;
  creditsMicro: number;
  expiresAt: number;
  successUrl: string | null;
  cancelUrl: string | null;
  status: 'open' | 'complete' | 'expired';
  /** Correctly signed event ids delivered for it, for re-delivery. */
  events: string[];
}

type Op =
  | { kind: 'chat'; actor: Actor; maxTokens: number; content: string }
  | { kind: 'claimDaily'; actor: Actor; status?: number }
  | { kind: 'claimTask'; actor: Actor; task: string; memories?: number; eligible: 'yes' | 'no' | 'maybe'; status?: number }
  | { kind: 'purchase'; actor: Actor; credits: number; successUrl: string | null; cancelUrl: string | null }
  | { kind: 'fund'; app: AppActor; credits: number; successUrl: string | null; cancelUrl: string | null }
  | { kind: 'pay'; session: Session; racers: number }
  | { kind: 'cancel'; session: Session }
  | { kind: 'deliver'; session: Session; eventId: string; copies: number }
  | { kind: 'redeliver'; session: Session; eventId: string }
  | { kind: 'forged'; session: Session; how: 'wrong_secret' | 'stale' | 'missing' | 'tampered'; eventId: string }
  | { kind: 'unknownSession'; sessionId: string; eventId: string }
  | { kind: 'topUp'; app: AppActor; address: string; fresh: boolean; credits: number }
  | { kind: 'grant'; app: AppActor; credits: number }
  | { kind: 'imageChat'; actor: Actor; maxTokens: number }
  | { kind: 'testPurchase'; app: AppActor; credits: number };

/** Who a claim or a purchase credits: the key's app, or the user. */
const claimant = (actor: Actor): Account => actor.account;
/** Who pays a claim: an app for its users; developers' claims come from the promotions account, not modelled here. */
const sponsor = (actor: Actor): Account | null => (actor.kind === 'user' ? actor.app.account : null);
/** A claim the sponsor could not pay: allowed, since what it can pay depends on holds in flight. */
const sponsorShort = (response: { status: number; body: any }) => response.status === 402 && response.body?.error?.code === 'sponsor_cannot_pay';
/** Who pays for inference: the app for its keys and for a pooled app's users, else the user. */
const payer = (actor: Actor): Account => (actor.kind === 'user' && actor.app.pooled ? actor.app.account : actor.account);
/** What first_chat counts for a claimant: an app key counts the whole app's chats, a user only theirs. */
const chatScope = (actor: Actor): Account => actor.account;
/** The first_chat scopes a chat counts for: its app, and its user if any. */
const scopesOf = (actor: Actor): Account[] => (actor.kind === 'app' ? [actor.account] : [actor.app.account, actor.account]);
const describeActor = (actor: Actor) => (actor.kind === 'app' ? `key of ${actor.appUuid}` : `user ${actor.address} of ${actor.app.appUuid}`);

describe('mixed money operations under concurrency', () => {
  it(`${ROUNDS * OPS_PER_ROUND} seeded operations leave the ledger consistent and equal to an independent model`, { timeout: 90_000 }, async () => {
    reportSeedOnFailure('mixed-operations', SEED);
    const random = seededRandom(SEED);
    const dir = mkdtempSync(join(tmpdir(), 'svc-reliability-'));
    const dbPath = join(dir, 'server.db');
    const t = await startTestServer({
      dbPath,
      providers: [pricedProvider(asynchronousEcho())],
      paymentWebhookSecret: SECRET,
      // The run is about money, not rate limits: thousands of calls share a few keys.
      rateLimitRequestsPerMinute: 1_000_000,
    });
    try {
      const run = createRun(t, random);
      await run.setUp();
      for (let round = 0; round < ROUNDS && run.violations.length === 0; round++) {
        await run.round();
        t.clock.advance(random.int(1, 8) * HOUR + random.int(0, 59) * 60_000);
      }
      expect(run.violations, `seed ${SEED}: answers that contradict the model`).toEqual([]);
      console.log(`mixed-operations seed ${SEED}: ${run.summary()}`);

      // Judge 1: the server's own checks, of every balance and of where every credit came from.
      // Judge 2: the model, against what the API reports and against the database file itself.
      // All differences are reported together.
      const check = await t.server.store.credits.check();
      const conservation = await checkConservation(t.server.store);
      expect(conservation.problems, `seed ${SEED}: conservation`).toEqual([]);
      const balances = await run.compareBalances();
      await t.close();
      const ledger = await withLedgerFile(dbPath, run.compareLedger);
      expect({ check, balances, ...ledger }, `seed ${SEED}: differences`).toEqual({
        check: [],
        balances: [],
        negatives: 0,
        sessions: [],
        claims: [],
        charges: [],
        unansweredCharges: [],
        unrecordedEvents: [],
      });
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The local echo model, answering on a later turn of the event loop as a real upstream does: so
 * requests overlap while they hold credits, instead of each finishing before the next one starts.
 */
function asynchronousEcho(): ProviderAdapter {
  const local = createLocalAdapter();
  return {
    ...local,
    async chat(call) {
      await new Promise((resolve) => setImmediate(resolve));
      return local.chat(call);
    },
  };
}

function createRun(t: TestServer, random: Random) {
  const apps: AppActor[] = [];
  const users: UserActor[] = [];
  const sessions: Session[] = [];
  const violations: string[] = [];
  const tally = createTally();

  // The model: expected balances (from a baseline read after set-up), and what was granted.
  const expected = new Map<Account, number>();
  const move = (account: Account, micro: number) => expected.set(account, (expected.get(account) ?? 0) + micro);
  const dailyClaims = new Map<Account, Set<string>>(); // account → UTC days claimed
  const tasksClaimed = new Set<string>(); // `${account}|${task}`
  const chatted = new Set<Account>(); // first_chat scopes with a successful chat
  const charges: { requestId: string; account: Account; costMicro: number }[] = [];
  const accountOfUser = new Map<Account, { appUuid: string; address: string }>();

  const label = (op: Op): string => {
    const where = 'actor' in op ? ` (${describeActor(op.actor)})` : 'session' in op ? ` (${op.session.id}, ${op.session.status})` : '';
    return `${op.kind}${where}`;
  };
  const violation = (op: Op, what: string) => violations.push(`${label(op)}: ${what}`);
  const count = (op: Op, outcome: string | number) => tally.count(`${op.kind} ${outcome}`);

  // Identity tokens as an identity provider issues them, re-signed whenever the clock has moved.
  const tokens = new Map<UserActor, { at: number; token: string }>();
  async function tokenOf(user: UserActor): Promise<string> {
    const at = t.clock.now().getTime();
    const cached = tokens.get(user);
    if (cached?.at === at) return cached.token;
    const idp = user.app.idp!;
    const now = Math.floor(at / 1000);
    const token = await new SignJWT({
      iss: 'privy.io',
      aud: idp.idpAppId,
      sub: `did:privy:${user.address}`,
      iat: now,
      exp: now + 3600,
      linked_accounts: JSON.stringify([{ type: 'wallet', address: user.address, chain_type: 'ethereum' }]),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .sign(idp.privateKey);
    tokens.set(user, { at, token });
    return token;
  }
  const as = async (actor: Actor) => (actor.kind === 'app' ? { key: actor.key } : bearer(await tokenOf(actor)));
  const testKeys = new Map<AppActor, string>();
  async function testKeyOf(app: AppActor): Promise<string> {
    const known = testKeys.get(app);
    if (known) return known;
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'test', is_test: true })).secret;
    testKeys.set(app, key);
    return key;
  }

  /** A browser-style POST to a sandbox checkout page action, without following its redirect. */
  async function postPage(url: string) {
    const response = await fetch(url, { method: 'POST', redirect: 'manual' });
    const text = await response.text();
    const code = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text).error?.code ?? null) : null;
    return { status: response.status, code: code as string | null };
  }

  const webhook = (payload: string, signature: string | null) =>
    t.call('POST', `${API}/subscriptions/webhook`, {
      key: null,
      rawBody: payload,
      headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
    });
  const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

  /** An app of the owner with its own live key and an identity provider whose key the test holds. */
  async function addApp(fields: { app_type: 'standard' | 'pooled_api'; default_user_credits: number; balanceCredits: number }) {
    const record = await createOwnerApp(t, { name: `reliability ${fields.app_type}`, ...fields });
    const keys = await generateKeyPair('ES256', { extractable: true });
    const idpAppId = `idp-${record.appUuid}`;
    const idpBody = { idp_app_id: idpAppId, idp_verification_key: await exportSPKI(keys.publicKey) };
    expectStatus(await t.call('PUT', appPath(record.appUuid, 'idp'), { body: idpBody }), 200);
    const key = (await t.server.services.apiKeys.create(record.appUuid, { name: 'load', is_test: false, role: 'admin' })).secret;
    const app: AppActor = {
      kind: 'app',
      appUuid: record.appUuid,
      key,
      pooled: fields.app_type === 'pooled_api',
      defaultUserMicro: toMicro(fields.default_user_credits),
      account: `app:${record.appUuid}`,
      idp: { idpAppId, privateKey: keys.privateKey },
    };
    apps.push(app);
    return app;
  }

  const userOf = (app: AppActor, address: string): UserActor => {
    const user: UserActor = { kind: 'user', app, address, account: `user:${app.appUuid}/${address}` };
    accountOfUser.set(user.account, { appUuid: app.appUuid, address });
    return user;
  };

  async function balanceOf(account: Account): Promise<{ micro: number; heldMicro: number }> {
    const user = accountOfUser.get(account);
    if (user) {
      const response = await t.call('GET', appPath(user.appUuid, 'users', user.address));
      expectStatus(response, 200);
      return { micro: toMicro(response.body.credits), heldMicro: 0 };
    }
    const response = await t.call('GET', appPath(account.slice('app:'.length)));
    expectStatus(response, 200);
    return { micro: toMicro(response.body.balance_credits), heldMicro: toMicro(response.body.held_credits) };
  }

  // ---- planning: what a round does --------------------------------------------------------------

  const address = () => `0x${random.hex(40)}`;
  const eventId = () => `evt_${random.hex(24)}`;
  // Users sign in with tokens of their app's identity provider; the default app has none.
  const anyActor = (): Actor => (random.chance(0.5) ? random.pick(apps) : random.pick(users.filter((u) => u.app.idp !== null)));
  const urls = () => ({
    successUrl: random.chance(0.5) ? 'https://app.example/thanks' : null,
    cancelUrl: random.chance(0.5) ? 'https://app.example/back' : null,
  });
  /** Credits to buy: a pack, any whole amount from 100, or (rarely) an amount the server refuses. */
  const purchaseCredits = () =>
    random.chance(0.08) ? random.pick([99, 150.5, 0]) : random.chance(0.4) ? random.pick([500, 1200, 6500]) : random.int(100, 900);

  function plan(): Op[] {
    // Sessions that already have an operation which can change them this round.
    const decided = new Set<Session>();
    const deciding = (): Session | undefined => {
      const free = sessions.filter((s) => !decided.has(s));
      const open = free.filter((s) => s.status === 'open');
      const candidates = open.length > 0 && random.chance(0.75) ? open : free;
      if (candidates.length === 0) return undefined;
      const session = random.pick(candidates);
      decided.add(session);
      return session;
    };

    const planOne = (): Op | undefined => {
      switch (random.weighted(WEIGHTS)) {
        case 'chat': {
          const actor = anyActor();
          const balance = expected.get(payer(actor)) ?? 0;
          // A request holds what max_tokens could cost, and spends a few credits. Some are sized
          // to the payer's whole balance (as it stood when the round began): the edge where
          // racing holds decide who is served, and where a charge could come up short.
          const maxTokens = random.chance(0.3)
            ? Math.max(1, Math.floor(balance / PAID_OUTPUT_MICRO) + random.int(-6, 2))
            : random.chance(0.7)
              ? random.int(1, 120)
              : random.int(120, 3000);
          const words = Array.from({ length: random.int(1, 12) }, () => random.pick(['alpha', 'beta', 'gamma', 'delta', 'ledger']));
          return { kind: 'chat', actor, maxTokens, content: words.join(' ') };
        }
        case 'claimDaily':
          return { kind: 'claimDaily', actor: anyActor() };
        case 'claimTask': {
          const task = random.pick(['first_chat', 'save_first_memory', 'save_ten_memories']);
          if (task === 'first_chat') return { kind: 'claimTask', actor: anyActor(), task, eligible: 'maybe' };
          const memories = task === 'save_first_memory' ? random.int(0, 2) : random.int(5, 15);
          const needed = task === 'save_first_memory' ? 1 : 10;
          return { kind: 'claimTask', actor: anyActor(), task, memories, eligible: memories >= needed ? 'yes' : 'no' };
        }
        case 'purchase':
          return { kind: 'purchase', actor: anyActor(), credits: purchaseCredits(), ...urls() };
        case 'fund':
          return { kind: 'fund', app: random.pick(apps), credits: purchaseCredits(), ...urls() };
        case 'pay': {
          const session = deciding();
          return session && { kind: 'pay', session, racers: random.chance(0.2) ? random.int(2, 4) : 1 };
        }
        case 'cancel': {
          const session = deciding();
          return session && { kind: 'cancel', session };
        }
        case 'deliver': {
          const session = deciding();
          return session && { kind: 'deliver', session, eventId: eventId(), copies: random.chance(0.25) ? random.int(2, 4) : 1 };
        }
        case 'redeliver': {
          const delivered = sessions.filter((s) => s.events.length > 0);
          if (delivered.length === 0) return undefined;
          const session = random.pick(delivered);
          return { kind: 'redeliver', session, eventId: random.pick(session.events) };
        }
        case 'forged': {
          if (sessions.length === 0) return undefined;
          const how = random.pick(['wrong_secret', 'stale', 'missing', 'tampered'] as const);
          return { kind: 'forged', session: random.pick(sessions), how, eventId: eventId() };
        }
        case 'unknownSession':
          return { kind: 'unknownSession', sessionId: `cs_${random.hex(32)}`, eventId: eventId() };
        case 'grant':
          return { kind: 'grant', app: random.pick(apps), credits: random.int(1, 500) + random.int(0, 999_999) / MICRO };
        case 'imageChat':
          // The image alone holds the model's whole window: most balances cannot cover it.
          return { kind: 'imageChat', actor: anyActor(), maxTokens: random.int(1, 50) };
        case 'testPurchase':
          return { kind: 'testPurchase', app: random.pick(apps), credits: random.pick([500, 1200]) };
        case 'topUp': {
          const fresh = random.chance(0.2);
          const user = fresh ? undefined : random.pick(users);
          const app = user?.app ?? random.pick(apps);
          // Mostly small, with micro-credit fractions; sometimes most of the app's balance or more.
          const appCredits = (expected.get(app.account) ?? 0) / MICRO;
          const credits = random.chance(0.2)
            ? Math.max(1, Math.round(appCredits * (0.3 + random.next() * 0.8)))
            : random.int(1, 8) + (random.chance(0.3) ? random.int(1, 999_999) / MICRO : 0);
          return { kind: 'topUp', app, address: user?.address ?? address(), fresh, credits };
        }
      }
    };

    const ops: Op[] = [];
    while (ops.length < OPS_PER_ROUND) {
      const op = planOne();
      if (op) ops.push(op);
    }
    // first_chat: eligible if the scope chatted before this round; not, if no chat of this round
    // can count for it; otherwise it depends on which request lands first.
    const chattingNow = new Set(ops.flatMap((op) => (op.kind === 'chat' ? scopesOf(op.actor) : [])));
    for (const op of ops) {
      if (op.kind !== 'claimTask' || op.task !== 'first_chat') continue;
      const scope = chatScope(op.actor);
      op.eligible = chatted.has(scope) ? 'yes' : chattingNow.has(scope) ? 'maybe' : 'no';
    }
    return ops;
  }

  // ---- execution: run one operation, check its answer, update the model ----------------------

  /** A chat on the paid model: what the answer says it used is what must be charged; else a 402. */
  async function chat(op: Extract<Op, { kind: 'chat' | 'imageChat' }>, content: unknown) {
    const response = await t.call('POST', `${API}/chat/completions`, {
      ...(await as(op.actor)),
      body: { model: 'paid/echo', max_tokens: op.maxTokens, messages: [{ role: 'user', content }] },
    });
    count(op, response.status);
    if (response.status === 200) {
      const costMicro = costOfUsage(response.body.usage);
      move(payer(op.actor), -costMicro);
      charges.push({ requestId: response.headers.get('x-request-id') ?? '', account: payer(op.actor), costMicro });
      for (const scope of scopesOf(op.actor)) chatted.add(scope);
    } else if (response.status !== 402) {
      violation(op, `status ${response.status} ${JSON.stringify(response.body)}`);
    }
  }

  async function execute(op: Op): Promise<void> {
    switch (op.kind) {
      case 'chat': {
        return chat(op, op.content);
      }

      case 'grant': {
        // The operator's grant: a source of live credits, straight into the app's balance.
        await t.server.store.credits.grant(
          { kind: 'app', appUuid: op.app.appUuid },
          { amountMicro: toMicro(op.credits), kind: 'operator_grant', idempotencyKey: `grant:${randomUUID()}`, at: t.clock.now().toISOString() },
        );
        count(op, 'granted');
        move(op.app.account, toMicro(op.credits));
        return;
      }

      case 'imageChat': {
        return chat(op, [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/x.png' } }]);
      }

      case 'testPurchase': {
        // Play money: paid through the sandbox into the app's test balance; no live credit moves.
        const key = await testKeyOf(op.app);
        const session = await t.call('POST', `${API}/credits/purchase`, { key, body: { credits: op.credits } });
        count(op, session.status);
        if (session.status !== 201 || session.body.livemode !== false) {
          violation(op, `status ${session.status} ${JSON.stringify(session.body)}`);
          return;
        }
        const paid = await postPage(`${session.body.url}/pay`);
        if (paid.status !== 200) violation(op, `pay: ${paid.status} ${paid.code}`);
        return;
      }

      case 'claimDaily': {
        const response = await t.call('POST', `${API}/credits/claim-daily`, await as(op.actor));
        op.status = response.status;
        count(op, response.status);
        if (response.status === 200) {
          if (response.body.granted_credits !== 10) violation(op, `granted ${response.body.granted_credits}`);
          move(claimant(op.actor), DAILY_MICRO);
          const from = sponsor(op.actor);
          if (from) move(from, -DAILY_MICRO);
          const days = dailyClaims.get(claimant(op.actor)) ?? new Set();
          dailyClaims.set(claimant(op.actor), days.add(t.clock.now().toISOString().slice(0, 10)));
        } else if (!(response.status === 409 && response.body.error?.code === 'already_claimed') && !(op.actor.kind === 'user' && sponsorShort(response))) {
          violation(op, `status ${response.status} ${JSON.stringify(response.body)}`);
        }
        return;
      }

      case 'claimTask': {
        const body = { task_type: op.task, ...(op.memories === undefined ? {} : { memories: op.memories }) };
        const response = await t.call('POST', `${API}/credits/claim-task`, { ...(await as(op.actor)), body });
        op.status = response.status;
        count(op, response.status);
        const code = response.body?.error?.code;
        const granted = response.status === 200;
        const alreadyClaimed = response.status === 409 && code === 'already_claimed';
        const notMet = response.status === 400 && code === 'requirement_not_met';
        const short = op.actor.kind === 'user' && sponsorShort(response);
        const allowed = { yes: granted || alreadyClaimed || short, no: notMet, maybe: granted || alreadyClaimed || notMet || short }[op.eligible];
        if (!allowed) violation(op, `eligible ${op.eligible}, got ${response.status} ${JSON.stringify(response.body)}`);
        if (granted) {
          move(claimant(op.actor), TASK_REWARD_MICRO[op.task]!);
          const from = sponsor(op.actor);
          if (from) move(from, -TASK_REWARD_MICRO[op.task]!);
          tasksClaimed.add(`${claimant(op.actor)}|${op.task}`);
        }
        return;
      }

      case 'purchase':
      case 'fund': {
        const body = {
          credits: op.credits,
          ...(op.successUrl ? { success_url: op.successUrl } : {}),
          ...(op.cancelUrl ? { cancel_url: op.cancelUrl } : {}),
        };
        const response =
          op.kind === 'purchase'
            ? await t.call('POST', `${API}/credits/purchase`, { ...(await as(op.actor)), body })
            : await t.call('POST', appPath(op.app.appUuid, 'fund'), { body });
        count(op, response.status);
        if (!(op.credits >= 100 && Number.isInteger(op.credits))) {
          if (response.status !== 400 || response.body.error?.param !== 'credits') violation(op, `status ${response.status} ${JSON.stringify(response.body)}`);
          return;
        }
        if (response.status !== 201 || response.body.status !== 'open' || response.body.credits !== op.credits) {
          violation(op, `status ${response.status} ${JSON.stringify(response.body)}`);
          return;
        }
        sessions.push({
          id: response.body.id,
          url: response.body.url,
          account: op.kind === 'purchase' ? claimant(op.actor) : op.app.account,
          creditsMicro: toMicro(op.credits),
          expiresAt: Date.parse(response.body.expires_at),
          successUrl: op.successUrl,
          cancelUrl: op.cancelUrl,
          status: 'open',
          events: [],
        });
        return;
      }

      case 'pay': {
        // Decided when planned: nothing else changes this session during the round.
        const { session } = op;
        const refusal =
          session.status === 'complete'
            ? 'already_paid'
            : session.status === 'expired' || session.expiresAt <= t.clock.now().getTime()
              ? 'checkout_session_expired'
              : null;
        const answers = await Promise.all(Array.from({ length: op.racers }, () => postPage(`${session.url}/pay`)));
        for (const a of answers) count(op, a.code ?? a.status);
        if (refusal !== null) {
          if (!answers.every((a) => a.status === 409 && a.code === refusal)) violation(op, `expected 409 ${refusal}, got ${JSON.stringify(answers)}`);
          return;
        }
        // Of racing payments exactly one pays; the others are told it is already paid.
        const successStatus = session.successUrl ? 303 : 200;
        const paid = answers.filter((a) => a.status === successStatus);
        const refused = answers.filter((a) => a.status === 409 && a.code === 'already_paid');
        if (paid.length !== 1 || refused.length !== answers.length - 1) {
          violation(op, `expected one ${successStatus} and already_paid for the rest, got ${JSON.stringify(answers)}`);
          return;
        }
        session.status = 'complete';
        move(session.account, session.creditsMicro);
        return;
      }

      case 'cancel': {
        const { session } = op;
        const answer = await postPage(`${session.url}/cancel`);
        count(op, answer.code ?? answer.status);
        if (session.status === 'complete') {
          if (answer.status !== 409 || answer.code !== 'already_paid') violation(op, `expected 409 already_paid, got ${JSON.stringify(answer)}`);
          return;
        }
        if (answer.status !== (session.cancelUrl ? 303 : 200)) violation(op, `got ${JSON.stringify(answer)}`);
        session.status = 'expired';
        return;
      }

      case 'deliver': {
        // The processor's completion event; `copies` identical deliveries race each other.
        const { session } = op;
        const { payload, signature } = signedEvent(completedEvent(op.eventId, session.id), SECRET, nowSeconds());
        const answers = await Promise.all(Array.from({ length: op.copies }, () => webhook(payload, signature)));
        for (const a of answers) count(op, a.status);
        if (!answers.every((a) => a.status === 200 && a.body?.received === true)) violation(op, `got ${JSON.stringify(answers.map((a) => a.body))}`);
        session.events.push(op.eventId);
        // Completion credits an open session (expired by time or not: the processor says it is
        // paid), once; a completed or cancelled one stays as it is.
        if (session.status === 'open') {
          session.status = 'complete';
          move(session.account, session.creditsMicro);
        }
        return;
      }

      case 'redeliver': {
        // An event delivered in an earlier round, again (newly signed, as a processor's retry
        // is): it changes nothing.
        const { payload, signature } = signedEvent(completedEvent(op.eventId, op.session.id), SECRET, nowSeconds());
        const answer = await webhook(payload, signature);
        count(op, answer.status);
        if (answer.status !== 200) violation(op, `got ${answer.status} ${JSON.stringify(answer.body)}`);
        return;
      }

      case 'forged': {
        const event = completedEvent(op.eventId, op.session.id);
        const signature = {
          wrong_secret: signedEvent(event, 'whsec_not_the_secret_0000', nowSeconds()).signature,
          stale: signedEvent(event, SECRET, nowSeconds() - 301).signature,
          missing: null,
          // Signed for another session; the body names this one.
          tampered: signedEvent(completedEvent(op.eventId, `cs_${'0'.repeat(32)}`), SECRET, nowSeconds()).signature,
        }[op.how];
        const code = { wrong_secret: 'signature_invalid', stale: 'signature_stale', missing: 'signature_missing', tampered: 'signature_invalid' }[op.how];
        const answer = await webhook(JSON.stringify(event), signature);
        count(op, answer.body?.error?.code ?? answer.status);
        if (answer.status !== 400 || answer.body?.error?.code !== code) violation(op, `expected 400 ${code}, got ${answer.status} ${JSON.stringify(answer.body)}`);
        return;
      }

      case 'unknownSession': {
        const { payload, signature } = signedEvent(completedEvent(op.eventId, op.sessionId), SECRET, nowSeconds());
        const answer = await webhook(payload, signature);
        count(op, answer.status);
        if (answer.status !== 200) violation(op, `got ${answer.status} ${JSON.stringify(answer.body)}`);
        return;
      }

      case 'topUp': {
        const response = await t.call('POST', appPath(op.app.appUuid, 'users', op.address, 'top-up'), { body: { credits: op.credits } });
        count(op, response.status);
        if (response.status === 402) return;
        if (response.status !== 200) {
          violation(op, `status ${response.status} ${JSON.stringify(response.body)}`);
          return;
        }
        // A top-up to a new address creates the user, with the app's default grant on a standard app.
        const micro = toMicro(op.credits) + (op.fresh && !op.app.pooled ? op.app.defaultUserMicro : 0);
        const user = op.fresh ? userOf(op.app, op.address) : users.find((u) => u.app === op.app && u.address === op.address)!;
        if (op.fresh) users.push(user);
        move(op.app.account, -micro);
        move(user.account, micro);
        return;
      }
    }
  }

  /** After a round: claims that raced each other granted once per account and day, or task. */
  function checkClaims(ops: Op[]) {
    const today = t.clock.now().toISOString().slice(0, 10);
    const daily = new Map<Account, number[]>();
    const tasks = new Map<string, { statuses: number[]; anyEligible: boolean }>();
    for (const op of ops) {
      if (op.kind === 'claimDaily') daily.set(claimant(op.actor), [...(daily.get(claimant(op.actor)) ?? []), op.status ?? 0]);
      if (op.kind === 'claimTask') {
        const key = `${claimant(op.actor)}|${op.task}`;
        const group = tasks.get(key) ?? { statuses: [], anyEligible: false };
        group.statuses.push(op.status ?? 0);
        group.anyEligible ||= op.eligible === 'yes';
        tasks.set(key, group);
      }
    }
    for (const [account, statuses] of daily) {
      // One grant per account and day, whoever asked first; a refusal means that grant exists.
      const granted = statuses.filter((s) => s === 200).length;
      if (granted > 1) violations.push(`claim-daily for ${account}: ${granted} grants on ${today}`);
      // Refused only because the sponsor could not pay is no claim at all.
      if (!dailyClaims.get(account)?.has(today) && statuses.some((s) => s !== 402)) {
        violations.push(`claim-daily for ${account}: refused ${statuses.length} times, never granted on ${today}`);
      }
    }
    for (const [key, { statuses, anyEligible }] of tasks) {
      const granted = statuses.filter((s) => s === 200).length;
      if (granted > 1) violations.push(`claim-task ${key}: ${granted} grants`);
      if (statuses.includes(409) && !tasksClaimed.has(key)) violations.push(`claim-task ${key}: refused as already claimed, never granted`);
      if (anyEligible && !tasksClaimed.has(key) && !statuses.includes(402)) violations.push(`claim-task ${key}: eligible, never granted`);
    }
  }

  return {
    violations,

    async setUp() {
      // Developers' claims are paid from the promotions account: the operator funds it.
      await fundPromotions(t, 10_000_000);
      const defaultApp = await t.call('GET', appPath(t.appUuid));
      expectStatus(defaultApp, 200);
      apps.push({
        kind: 'app',
        appUuid: t.appUuid,
        key: t.liveKey,
        pooled: false,
        defaultUserMicro: toMicro(defaultApp.body.default_user_credits),
        account: `app:${t.appUuid}`,
        idp: null,
      });
      const standard = await addApp({ app_type: 'standard', default_user_credits: 3, balanceCredits: 60 });
      const pooled = await addApp({ app_type: 'pooled_api', default_user_credits: 40, balanceCredits: 80 });
      for (const app of [standard, pooled]) {
        for (let i = 0; i < 3; i++) {
          const user = userOf(app, address());
          // Signing in creates the user (and pays a standard app's default grant) before the baseline.
          expectStatus(await t.call('GET', `${API}/credits/balance`, bearer(await tokenOf(user))), 200);
          users.push(user);
        }
      }
      for (const actor of [...apps, ...users]) expected.set(actor.account, (await balanceOf(actor.account)).micro);
    },

    async round() {
      const ops = plan();
      let next = 0;
      await runPool(CONCURRENCY, () => {
        const op = ops[next++];
        if (!op) return undefined;
        return () =>
          execute(op).catch((error: unknown) => {
            violation(op, `threw ${(error as Error).stack}`);
          });
      });
      checkClaims(ops);
    },

    summary: tally.summary,

    /** Accounts whose balance (API) is not baseline + grants − charges, or which still hold credits. */
    async compareBalances() {
      const problems: { account: Account; expectedMicro: number; actualMicro: number; heldMicro: number }[] = [];
      for (const [account, expectedMicro] of expected) {
        const { micro: actualMicro, heldMicro } = await balanceOf(account);
        if (actualMicro !== expectedMicro || heldMicro !== 0) problems.push({ account, expectedMicro, actualMicro, heldMicro });
      }
      return problems;
    },

    /** What the database file holds against the model: each grant once, each charge as answered. */
    compareLedger(ledger: LedgerFile) {
      const idOf = (account: Account) => {
        const user = accountOfUser.get(account);
        return user ? ledger.userAccount(user.appUuid, user.address) : ledger.appAccount(account.slice('app:'.length));
      };
      const pairs = (entries: { accountId: number; amountMicro: number }[]) =>
        entries.map((e) => ({ accountId: e.accountId, amountMicro: e.amountMicro }));
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

      // A session is credited once, to its buyer, exactly when it is complete.
      const sessionProblems = sessions.flatMap((session) => {
        const status = ledger.session(session.id)?.status;
        const credited = pairs(ledger.entries(`checkout:${session.id}`));
        const want = session.status === 'complete' ? [{ accountId: idOf(session.account), amountMicro: session.creditsMicro }] : [];
        return status === session.status && same(credited, want)
          ? []
          : [{ session: session.id, want: { status: session.status, credited: want }, got: { status, credited } }];
      });

      // Daily claims (one entry per day granted) and task rewards, per account; an app also pays
      // its users' (the negative entries, checked with the balances).
      const claimProblems = [...expected.keys()].flatMap((account) => {
        const id = idOf(account);
        const received = (kind: string) => ledger.entriesOf(id, kind).filter((e) => e.amountMicro > 0);
        const days = received('daily_claim').map((e) => e.idempotencyKey).sort();
        const wantDays = [...(dailyClaims.get(account) ?? [])].map((day) => `claim-daily:${day}`).sort();
        const tasks = received('task_reward').map((e) => e.reference ?? '').sort();
        const wantTasks = [...tasksClaimed].filter((k) => k.startsWith(`${account}|`)).map((k) => k.slice(account.length + 1)).sort();
        return same(days, wantDays) && same(tasks, wantTasks) ? [] : [{ account, want: { days: wantDays, tasks: wantTasks }, got: { days, tasks } }];
      });

      // Every answered inference is charged exactly its cost, to its payer, once; nothing else is.
      const chargeProblems = charges.flatMap(({ requestId, account, costMicro }) => {
        const got = pairs(ledger.entries(`usage:${requestId}`));
        const want = [{ accountId: idOf(account), amountMicro: -costMicro }];
        return same(got, want) ? [] : [{ requestId, account, want, got }];
      });
      const answered = new Set(charges.map((c) => `usage:${c.requestId}`));
      const unansweredCharges = ledger.entriesWithPrefix('usage:').filter((e) => !answered.has(e.idempotencyKey));

      // Every correctly signed event was recorded, so it can never apply twice.
      const recorded = new Set(ledger.eventIds());
      const unrecordedEvents = sessions.flatMap((s) => s.events).filter((id) => !recorded.has(id));

      return {
        negatives: ledger.negatives(),
        sessions: sessionProblems,
        claims: claimProblems,
        charges: chargeProblems,
        unansweredCharges,
        unrecordedEvents,
      };
    },
  };
}
