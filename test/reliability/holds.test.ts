import { describe, expect, it } from 'vitest';
import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import { estimateChatInputTokens, UNBOUNDED } from '../../server/providers/tokens.js';
import type { ProviderAdapter } from '../../server/providers/types.js';
import type { UsageEvent } from '../../server/store/types.js';
import { API, appPath, createOwnerApp, randomAddress } from '../helpers/api.js';
import { gatedEcho, pricedProvider } from '../helpers/providers.js';
import { costOfUsage, MICRO, PAID_INPUT_MICRO, PAID_OUTPUT_MICRO, toMicro } from '../helpers/reliability.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Holds (ARCHITECTURE.md §6): a request holds the most it can cost before the upstream call and settles
 * its real cost after, so concurrent requests never overdraw and every served request is paid
 * for in full. These tests keep requests in flight on purpose — the upstream answers only when
 * the test opens its gate — so that holds really overlap.
 */


/** A server on the priced model; a gate is opened before closing, so no request is left hanging. */
async function withServer(adapter: ProviderAdapter & { open?: () => void }, test: (t: TestServer) => Promise<void>) {
  const t = await startTestServer({ providers: [pricedProvider(adapter)] });
  try {
    await test(t);
  } finally {
    adapter.open?.();
    await t.close();
  }
}

const chatBody = (content: string, maxTokens: number) => ({ model: 'paid/echo', max_tokens: maxTokens, messages: [{ role: 'user' as const, content }] });
const chat = (t: TestServer, key: string, content: string, maxTokens: number) =>
  t.call('POST', `${API}/chat/completions`, { key, body: chatBody(content, maxTokens) });
/** What a request holds: its estimated input and all of max_tokens, at the model's prices. */
const holdOf = (content: string, maxTokens: number) => estimateChatInputTokens(chatBody(content, maxTokens), UNBOUNDED) * PAID_INPUT_MICRO + maxTokens * PAID_OUTPUT_MICRO;
const appBalance = async (t: TestServer, appUuid: string) => {
  const app = (await t.call('GET', appPath(appUuid))).body;
  return { micro: toMicro(app.balance_credits), heldMicro: toMicro(app.held_credits) };
};

describe('holds under concurrency', () => {
  it('admits at most as many concurrent requests as the balance covers, and never overdraws', async () => {
    const gated = gatedEcho();
    await withServer(gated.adapter, async (t) => {
      // Each request holds 16 credits (its input bound by UTF-8 bytes and framing, and 50 output tokens at 0.2): ten fit in 165.
      const hold = holdOf('concurrent calls', 50);
      expect(Math.floor((165 * MICRO) / hold)).toBe(10);
      const app = await createOwnerApp(t, { balanceCredits: 165 });
      const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;

      // All forty are in flight together: none can finish (and free its hold) before the gate opens.
      let answered = 0;
      let allDecided: () => void = () => {};
      const decided = new Promise<void>((resolve) => (allDecided = resolve));
      const check = () => gated.started() + answered === 40 && allDecided();
      gated.onStart(check);
      const requests = Array.from({ length: 40 }, () =>
        chat(t, key, 'concurrent calls', 50).then((answer) => {
          answered += 1;
          check();
          return answer;
        }),
      );
      await decided;

      // Ten reached the upstream, holding everything; thirty were refused without it.
      expect(gated.started()).toBe(10);
      expect(await appBalance(t, app.appUuid)).toEqual({ micro: 165 * MICRO, heldMicro: 10 * hold });
      gated.open();
      const answers = await Promise.all(requests);
      expect(answers.filter((a) => a.status === 402)).toHaveLength(30);
      const served = answers.filter((a) => a.status === 200);
      expect(served).toHaveLength(10);
      const charged = served.reduce((sum, a) => sum + costOfUsage(a.body.usage), 0);
      expect(await appBalance(t, app.appUuid)).toEqual({ micro: 165 * MICRO - charged, heldMicro: 0 });
      expect(await t.server.store.credits.check()).toEqual([]);
    });
  });

  it('a request settling is charged in full even when another request takes a hold meanwhile', async () => {
    await withServer(createLocalAdapter(), async (t) => {
      const app = await createOwnerApp(t, { balanceCredits: 20 });
      const payer = { kind: 'app' as const, appUuid: app.appUuid };
      const metering = t.server.store.metering;
      // Request A holds 11 credits and costs 10. Its settlement is written a moment later (with
      // others, in one transaction); request B asks for a hold in that moment.
      expect(await metering.hold(payer, 11 * MICRO, 'req_a')).toEqual({ ok: true });
      const settledA = metering.settle(payer, 11 * MICRO, 10 * MICRO, usage(app.appUuid, 'req_a', 10 * MICRO));
      const holdB = await metering.hold(payer, 15 * MICRO, 'req_b');
      // A is charged what it cost; B could have at most what A leaves (20 − 10).
      expect(await settledA).toEqual({ chargedMicro: 10 * MICRO });
      expect(holdB.ok).toBe(false);
    });
  });

  it('a top-up cannot spend credits held by a request in flight: that request is still charged in full', async () => {
    const gated = gatedEcho();
    await withServer(gated.adapter, async (t) => {
      const app = await createOwnerApp(t, { balanceCredits: 20 });
      const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;
      let started: () => void = () => {};
      const inFlight = new Promise<void>((resolve) => (started = resolve));
      gated.onStart(() => started());
      const request = chat(t, key, 'hello there', 50);
      await inFlight;
      const held = (await appBalance(t, app.appUuid)).heldMicro;
      expect(held).toBeGreaterThan(10 * MICRO);

      // The developer moves 19.5 of the 20 credits to a user while ~11 of them are held.
      const topUp = await t.call('POST', appPath(app.appUuid, 'users', randomAddress(), 'top-up'), { body: { credits: 19.5 } });
      gated.open();
      const answer = await request;
      expect(answer.status).toBe(200);
      // Served means paid: the request's whole cost is charged, whatever the top-up did.
      const after = await appBalance(t, app.appUuid);
      const chargedMicro = 20 * MICRO - (topUp.status === 200 ? 19.5 * MICRO : 0) - after.micro;
      expect({ topUp: topUp.status, chargedMicro, heldMicro: after.heldMicro }).toEqual({
        topUp: topUp.status,
        chargedMicro: costOfUsage(answer.body.usage),
        heldMicro: 0,
      });
      expect(await t.server.store.credits.check()).toEqual([]);
    });
  });
});

function usage(appUuid: string, requestId: string, costMicro: number): UsageEvent {
  return {
    requestId,
    appUuid,
    keyId: null,
    address: null,
    provider: 'paid',
    model: 'echo',
    operation: 'chat.completions',
    livemode: true,
    inputTokens: 0,
    outputTokens: 0,
    costMicro,
    latencyMs: 0,
    ttftMs: null,
    status: 'ok',
    errorCode: null,
    at: new Date(0).toISOString(),
  };
}

describe('the input estimate behind a hold', () => {
  it("counts earlier tool calls' arguments, not only message text", () => {
    const args = JSON.stringify({ path: 'src/index.ts', content: 'x'.repeat(4000) });
    const withCall = {
      messages: [
        { role: 'user' as const, content: 'write the file' },
        { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'write', arguments: args } }] },
        { role: 'tool' as const, tool_call_id: 'call_1', content: 'ok' },
      ],
    };
    const withoutCall = { messages: [withCall.messages[0], { role: 'assistant' as const, content: null }, withCall.messages[2]] };
    const difference = estimateChatInputTokens(withCall as never, UNBOUNDED) - estimateChatInputTokens(withoutCall as never, UNBOUNDED);
    expect(difference).toBeGreaterThanOrEqual(1000);
  });
});
