import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { BREAKER_READ_TTL_MS } from '../../server/store/postgres/breakers.js';
import { freshSchema } from '../helpers/postgres.js';
import { parseScrape } from '../helpers/prometheus.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Two instances over one PostgreSQL database: each counts what it served, but a breaker one of
 * them opens shows open in the other's /metrics and Providers view, which read the shared breakers.
 */
let upstream: FakeOpenAI;
let a: TestServer;
let b: TestServer;
let drop: () => Promise<void>;

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  const file = writeProvidersFile({
    providers: [{ id: 'acme', type: 'openai', base_url: upstream.url, api_key_env: 'FAKE_KEY', retries: 0, models: [{ id: 'm', input_price: 1, output_price: 2 }] }],
  });
  const options = { providersFile: file, env: { FAKE_KEY: upstream.apiKey } };
  const schema = await freshSchema();
  drop = schema.drop;
  a = await startTestServer({ ...options, dbPath: schema.url });
  b = await joinTestServer(a, options);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await drop?.();
  await upstream?.close();
});

const chat = (server: TestServer) =>
  server.call('POST', `${API}/chat/completions`, { body: { model: 'acme/m', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } });
const scrape = async (server: TestServer) => parseScrape(await (await fetch(`${server.url}/metrics`)).text());

describe('metrics on two instances', () => {
  it('each counts its own requests; a breaker opened by one shows open on the other', async () => {
    expect((await chat(b)).status).toBe(200);
    // Five failures in a row on instance a open the target's breaker (the default threshold).
    upstream.script(...Array.from({ length: 5 }, () => ({ kind: 'respond' as const, status: 500, body: { error: { message: 'boom', type: 'server_error' } } })));
    for (let i = 0; i < 5; i++) expect((await chat(a)).status).toBeGreaterThanOrEqual(500);
    // Another instance's breaker change shows once its last read of it is that old.
    a.clock.advance(BREAKER_READ_TTL_MS);

    const [onA, onB] = [await scrape(a), await scrape(b)];
    expect(onA.total('svc_requests_total', { status: 'error' })).toBe(5);
    expect(onB.total('svc_requests_total', { status: 'ok' })).toBe(1);
    expect(onB.total('svc_requests_total', { status: 'error' })).toBe(0);
    for (const m of [onA, onB]) {
      expect(m.total('svc_circuit_breaker_state', { target: 'acme/m', state: 'open' })).toBe(1);
      expect(m.total('svc_circuit_breaker_state', { target: 'acme/m', state: 'closed' })).toBe(0);
    }
    const viewOfB = (await b.call('GET', `${API}/providers/status`)).body.data;
    expect(viewOfB.find((row: { target: string }) => row.target === 'acme/m')).toEqual({ target: 'acme/m', breaker: 'open' });
  });
});
