import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { freshSchema } from '../helpers/postgres.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Circuit breakers shared by every instance over one PostgreSQL database: what one instance
 * learns of a dead target spares the others the same failures, and after the cooldown the
 * instances between them send the dead target one probe.
 */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function twoInstances(): Promise<{ a: TestServer; b: TestServer; dead: FakeOpenAI; live: FakeOpenAI }> {
  const [dead, live] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  open.push(dead, live);
  const file = writeProvidersFile({
    providers: [
      { id: 'dead', type: 'openai', base_url: dead.url, api_key_env: 'DEAD_KEY', retries: 0, models: [{ id: 'm', input_price: 1, output_price: 2 }] },
      { id: 'live', type: 'openai', base_url: live.url, api_key_env: 'LIVE_KEY', models: [{ id: 'm', input_price: 1, output_price: 2 }] },
    ],
    routes: { guarded: { strategy: 'fallback', targets: [{ model: 'dead/m' }, { model: 'live/m' }] } },
  });
  const options = { providersFile: file, env: { DEAD_KEY: dead.apiKey, LIVE_KEY: live.apiKey } };
  const schema = await freshSchema();
  const a = await startTestServer({ ...options, dbPath: schema.url });
  open.push({ close: async () => (await a.close(), await schema.drop()) });
  const b = await joinTestServer(a, options);
  open.push(b);
  return { a, b, dead, live };
}

const chat = (server: TestServer) =>
  server.call('POST', `${API}/chat/completions`, { body: { model: 'route/guarded', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } });
const sent = (fake: FakeOpenAI) => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;

describe('breakers shared by two instances', () => {
  it('a target that failed on one instance is skipped, unsent, by the other; after the cooldown one probe closes it for both', async () => {
    const { a, b, dead } = await twoInstances();
    dead.script(...Array.from({ length: 5 }, () => ({ kind: 'destroy' as const })));
    for (let i = 0; i < 5; i++) expect((await chat(a)).body.model).toBe('live/m');
    expect(sent(dead)).toBe(5);

    // Instance b has never seen dead/m fail, and sends it nothing.
    const skipped = await chat(b);
    expect(skipped.body.model).toBe('live/m');
    expect(skipped.headers.get('x-svc-attempts')).toBe('dead/m=circuit_open;0ms, live/m=ok');
    expect(sent(dead)).toBe(5);
    // And its Providers view (its metrics) shows the breaker open, as read from the shared state.
    const status = await b.call('GET', `${API}/providers/status`);
    expect(status.body.data.find((row: { target: string }) => row.target === 'dead/m')).toMatchObject({ breaker: 'open' });

    // Past the cooldown, both instances ask at once: one probe between them. It fails, and the
    // breaker is open again for both (a probe that succeeded would let the others through at once).
    a.clock.advance(30_000);
    dead.script({ kind: 'destroy' });
    const answers = await Promise.all([chat(a), chat(b), chat(a), chat(b)]);
    expect(answers.map((answer) => answer.body.model)).toEqual(['live/m', 'live/m', 'live/m', 'live/m']);
    expect(sent(dead)).toBe(6);
    expect((await chat(a)).headers.get('x-svc-attempts')).toMatch(/^dead\/m=circuit_open/);
    expect(sent(dead)).toBe(6);
    // The next probe, from b, succeeds: closed for both.
    a.clock.advance(30_000);
    expect((await chat(b)).body.model).toBe('dead/m');
    expect((await chat(a)).body.model).toBe('dead/m');
    expect(sent(dead)).toBe(8);
  });
});
