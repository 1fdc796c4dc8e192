import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { API, createOwnerApp } from '../helpers/api.js';
import { toMicro } from '../helpers/reliability.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A Messages request's input is held for at most the model's window (no input costs more than the
 * model can read). Anthropic widens the window of some models for a request that sends
 * `anthropic-beta: context-1m-…` — and bills the input above 200K at the long-context price (the
 * catalog's input tier above 200,000 for claude-sonnet-4-5, whose window it gives as 200,000).
 * The relay passes the header on, so such a request reads more than it was held for, at a
 * dearer price: the hold takes the widened window (messages-relay.ts).
 */
let anthropic: FakeAnthropic;
let t: TestServer;

/** A window of 1,000 tokens; above it, input costs twice as much (as Sonnet's above 200K). */
const WINDOW = 1_000;
const LONG_INPUT = 3_000;

beforeAll(async () => {
  anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
  const file = writeProvidersFile({
    providers: [
      {
        id: 'ant',
        type: 'anthropic',
        base_url: anthropic.url,
        api_key_env: 'ANT_KEY',
        models: [{ id: 'claude-wide', input_price: 1000, output_price: 2000, context_length: WINDOW, tiers: [{ above_input_tokens: WINDOW, input_price: 2000, output_price: 3000 }] }],
      },
    ],
  });
  t = await startTestServer({ providersFile: file, env: { ANT_KEY: 'anthropic-test-key' } });
});
afterAll(async () => {
  await t?.close();
  await anthropic?.close();
});

/** About 3,000 tokens of English (12,000 bytes): more than the window, which caps its bound at 1,000. */
const REPORT = 'The quarterly report shows revenue up and costs down across regions. '.repeat(175);
const body = { model: 'ant/claude-wide', max_tokens: 10, messages: [{ role: 'user', content: `Summarize this report: ${REPORT}` }] };
const widened = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-1m-2025-08-07' };

describe('a Messages request that widens its model window', () => {
  it('is charged its whole cost on a balance that pays its hold (held for the widened window at its price)', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 0.01 });
    const probe = (await t.server.services.apiKeys.create(app.appUuid, { name: 'probe', is_test: false })).secret;
    const refused = await t.call('POST', `${API}/messages`, { key: probe, headers: widened, body });
    expect(refused.status).toBe(402);
    const held = Number(/may cost up to ([\d.]+) credits/.exec(refused.body.error.message as string)?.[1]);
    const payer = await createOwnerApp(t, { balanceCredits: held + 1 });
    const key = (await t.server.services.apiKeys.create(payer.appUuid, { name: 'wide', is_test: false })).secret;
    // The upstream read the whole report the widened window let in.
    anthropic.script({
      kind: 'raw',
      body: JSON.stringify({
        id: 'msg_wide',
        type: 'message',
        role: 'assistant',
        model: 'claude-wide',
        content: [{ type: 'text', text: 'Done.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: LONG_INPUT, output_tokens: 2 },
      }),
    });
    const answer = await t.call('POST', `${API}/messages`, { key, headers: widened, body });
    expect(answer.status).toBe(200);
    expect(toMicro(answer.body.usage.cost)).toBe(toMicro(LONG_INPUT * 0.2 + 2 * 0.3));
  });
});
