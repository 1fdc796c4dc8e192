import { afterEach, describe, expect, it } from 'vitest';
import { signEvent } from '../../server/payments/signature.js';
import { checkConservation } from '../../server/services/conservation.js';
import { estimateChatInputTokens, UNBOUNDED } from '../../server/providers/tokens.js';
import { API, appPath, createOwnerApp, expectStatus, fundPromotions } from '../helpers/api.js';
import { emptySchema, freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { gatedEcho, pricedProvider, stallingChatAdapter } from '../helpers/providers.js';
import { MICRO, PAID_INPUT_MICRO, PAID_OUTPUT_MICRO, toMicro } from '../helpers/reliability.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';
import { subscriber } from '../helpers/subscriber.js';
import type { StartOptions } from '../../server/app.js';

/**
 * Two real servers over one PostgreSQL database behave as one server: no overdraft across them,
 * one claim, one limit, a revoked key refused by both, a background response reachable from
 * either, the billing clock and the owner's creation done once.
 */

const open: TestServer[] = [];
afterEach(async () => {
  // The joining instances first: the first one drops the schema when it closes.
  for (const server of open.splice(0).reverse()) await server.close();
});

async function twoInstances(options: Partial<StartOptions> = {}, second: Partial<StartOptions> = options): Promise<[TestServer, TestServer]> {
  const schema = await freshSchema();
  const a = await startTestServer({ ...options, dbPath: schema.url });
  const dropOnClose = a.close;
  a.close = async () => {
    await dropOnClose();
    await schema.drop();
  };
  open.push(a);
  const b = await joinTestServer(a, second);
  open.push(b);
  return [a, b];
}

const SECRET = 'whsec_two_instances_0123456789';
const chatBody = (content: string, maxTokens: number) => ({ model: 'paid/echo', max_tokens: maxTokens, messages: [{ role: 'user' as const, content }] });

describe.skipIf(!testDatabaseUrl)('two instances over one PostgreSQL database', () => {
  it('holds across both never overdraw: together they admit what the balance covers', async () => {
    const gateA = gatedEcho();
    const gateB = gatedEcho();
    const [a, b] = await twoInstances({ providers: [pricedProvider(gateA.adapter)] }, { providers: [pricedProvider(gateB.adapter)] });
    try {
      const hold = estimateChatInputTokens(chatBody('both at once', 50), UNBOUNDED) * PAID_INPUT_MICRO + 50 * PAID_OUTPUT_MICRO;
      expect(Math.floor((160 * MICRO) / hold)).toBe(10);
      const app = await createOwnerApp(a, { balanceCredits: 160 });
      const key = (await a.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;

      let answered = 0;
      let allDecided: () => void = () => {};
      const decided = new Promise<void>((resolve) => (allDecided = resolve));
      const check = () => gateA.started() + gateB.started() + answered === 40 && allDecided();
      gateA.onStart(check);
      gateB.onStart(check);
      const requests = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).call('POST', `${API}/chat/completions`, { key, body: chatBody('both at once', 50) }).then((answer) => {
          answered += 1;
          check();
          return answer;
        }),
      );
      await decided;
      expect(gateA.started() + gateB.started()).toBe(10);
      gateA.open();
      gateB.open();
      const answers = await Promise.all(requests);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
      expect(answers.filter((answer) => answer.status === 402)).toHaveLength(30);
      const after = (await b.call('GET', appPath(app.appUuid))).body;
      expect(toMicro(after.held_credits)).toBe(0);
      expect(toMicro(after.balance_credits)).toBeGreaterThanOrEqual(0);
      expect(await a.server.store.credits.check()).toEqual([]);
    } finally {
      gateA.open();
      gateB.open();
    }
  });

  it('50 daily claims spread over both: exactly one is granted', async () => {
    const [a, b] = await twoInstances();
    await fundPromotions(a, 1000);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('POST', `${API}/credits/claim-daily`)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409).length).toBe(49);
    expect((await b.call('GET', `${API}/credits/balance`)).body.credits).toBe(110);
  });

  it('a payment reported to both at once credits once', async () => {
    const [a, b] = await twoInstances({ paymentWebhookSecret: SECRET });
    const session = await a.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
    expectStatus(session, 201);
    const at = Math.floor(a.clock.now().getTime() / 1000);
    const deliveries = Array.from({ length: 10 }, (_, i) => {
      const payload = JSON.stringify({
        id: `evt_${i % 3}`,
        type: 'checkout.session.completed',
        data: { object: { id: session.body.id, object: 'checkout.session', payment_status: 'paid' } },
      });
      return (i % 2 ? a : b).call('POST', `${API}/subscriptions/webhook`, {
        rawBody: payload,
        key: null,
        headers: { 'content-type': 'application/json', 'stripe-signature': signEvent(payload, SECRET, at) },
      });
    });
    expect((await Promise.all(deliveries)).map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect((await a.call('GET', `${API}/credits/balance`)).body.credits).toBe(600);
  });

  it('upgrades of one subscription sent to both at once run one after another: one charge, one grant', async () => {
    const [a, b] = await twoInstances();
    const s = await subscriber(a);
    await s.subscribe('starter');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).call('POST', `${API}/subscriptions/upgrade`, { key: s.key, body: { tier: 'pro' } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await s.balance()).toBe(1000 + 3000);
    expect((await s.billing()).filter((line) => line.description.endsWith('upgrade'))).toEqual([expect.objectContaining({ amount_usd: 20, credits: 3000 })]);
    expect(await checkConservation(a.server.store)).toMatchObject({ ok: true, problems: [] });
  });

  it('a rate limit is one limit across both instances', async () => {
    const [a, b] = await twoInstances();
    expectStatus(await a.call('PATCH', appPath(a.appUuid), { body: { rate_limit_rpm: 10 } }), 200);
    const key = (await a.server.services.apiKeys.create(a.appUuid, { name: 'inference', is_test: false })).secret;
    const answers = [];
    // One after another, alternating: each instance alone would allow 10.
    for (let i = 0; i < 24; i++) {
      answers.push(await (i % 2 ? a : b).call('POST', `${API}/chat/completions`, { key, body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] } }));
    }
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(answers.slice(10).every((answer) => answer.status === 429)).toBe(true);
  });

  it('a key deleted on one instance is refused by the other within a second', async () => {
    const [a, b] = await twoInstances();
    const created = await a.call('POST', appPath(a.appUuid, 'api-keys'), { body: { name: 'short-lived', role: 'read_only' } });
    expectStatus(created, 201);
    const key = created.body.secret as string;
    // The other instance has the key in its cache.
    expectStatus(await b.call('GET', `${API}/credits/balance`, { key }), 200);
    expectStatus(await a.call('DELETE', appPath(a.appUuid, 'api-keys', created.body.key_id)), 200);
    const deleted = Date.now();
    // Whatever the other instance cached ages out within the promised second (by the wall clock, the
    // cache's own): a request it starts a second after the delete is refused. Timing the refusing
    // request's end instead would count how long a loaded machine takes to answer it.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deleted + 1_000 - Date.now())));
    expect((await b.call('GET', `${API}/credits/balance`, { key })).status).toBe(401);
  });

  it('a background response started on one instance is read and cancelled through the other', async () => {
    const adapter = stallingChatAdapter();
    const [a, b] = await twoInstances({ providers: [pricedProvider(adapter)] }, { providers: [pricedProvider()] });
    const queued = await a.call('POST', `${API}/responses`, { body: { model: 'paid/echo', input: 'far away', background: true } });
    expectStatus(queued, 200);
    await adapter.started;
    const seen = await b.call('GET', `${API}/responses/${queued.body.id}`);
    expect(seen.body.status).toBe('in_progress');
    const cancelled = await b.call('POST', `${API}/responses/${queued.body.id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    // The instance running it sees the cancel and stops the upstream call.
    await adapter.aborted;
    let balance;
    do balance = await a.call('GET', `${API}/credits/balance`);
    while (balance.body.held_credits !== 0);
    expect((await a.call('GET', `${API}/responses/${queued.body.id}`)).body.status).toBe('cancelled');
  });

  it('one instance leads the billing clock; the other takes over when it stops', async () => {
    const [a, b] = await twoInstances();
    // The first instance took the lease at start (its clock ran once).
    expect(await b.server.store.coordination.leads('billing-clock')).toBe(false);
    expect(await a.server.store.coordination.leads('billing-clock')).toBe(true);
    await a.server.close();
    expect(await b.server.store.coordination.leads('billing-clock')).toBe(true);
  });

  it('instances starting together on an empty database migrate it once, create one owner and one signing key', async () => {
    const schema = await emptySchema();
    try {
      const { startServer } = await import('../../server/app.js');
      const servers = await Promise.all(
        Array.from({ length: 3 }, () => startServer({ dbPath: schema.url, port: 0, log: () => {}, env: {}, payments: 'sandbox' })),
      );
      try {
        expect(servers.filter((server) => server.bootstrap !== null)).toHaveLength(1);
        expect(await servers[0]!.store.developers.count()).toBe(1);
        expect(await servers[1]!.store.schemaVersion()).toBeGreaterThan(0);
        const jwks = await Promise.all(servers.map(async (server) => (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: unknown[] }));
        expect(jwks[0]?.keys).toHaveLength(1);
        expect(jwks[1]).toEqual(jwks[0]);
        expect(jwks[2]).toEqual(jwks[0]);
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    } finally {
      await schema.drop();
    }
  });
});
