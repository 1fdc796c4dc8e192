import { networkInterfaces } from 'node:os';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { setBreaker } from '../helpers/breakers.js';
import { parseScrape } from '../helpers/prometheus.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `GET /metrics`: the Prometheus exposition, read back with a real text-format parser, agrees
 * with the usage rows (requests by status, tokens, what was charged); cached tokens are counted
 * as the answers reported them; no label carries a key or an app; only an operator may scrape
 * (the token when SVC_METRICS_TOKEN is set, else this host only).
 */
let upstream: FakeOpenAI;
let t: TestServer;
const TOKEN = 'metrics-token-0123456789';
const LOOKED_UP = { start: '2000-01-01T00:00:00.000Z', end: '2100-01-01T00:00:00.000Z' };

const model = { id: 'gpt-fake', input_price: 2, cached_input_price: 0.5, output_price: 8, context_length: 200_000, max_output_tokens: 100_000 };

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  // Two providers over one fake upstream, and a route from the first to the second; one try per
  // target, so each scripted failure is one attempt.
  const file = writeProvidersFile({
    providers: [
      { id: 'acme', type: 'openai', base_url: upstream.url, api_key_env: 'FAKE_KEY', retries: 0, models: [model] },
      { id: 'backup', type: 'openai', base_url: upstream.url, api_key_env: 'FAKE_KEY', retries: 0, models: [model] },
    ],
    routes: { smart: { strategy: 'fallback', targets: [{ model: 'acme/gpt-fake' }, { model: 'backup/gpt-fake' }] } },
  });
  // 10 credits: a few requests fit, one asking for 50,000 output tokens (40 credits) does not.
  t = await startTestServer({ providersFile: file, env: { FAKE_KEY: upstream.apiKey }, startingGrantCredits: 10 });
});
afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const sdk = () => new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
const scrape = async (url = t.url, headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers });
/** Long enough to be cached by the fake upstream (from 1,024 tokens, as OpenAI does). */
const longPrompt = `You are the metrics assistant. ${'Count every token twice and report it once. '.repeat(200)}`;

async function usageRows() {
  // Live rows only (the usage of the live key that made every request here).
  const rows = await t.server.store.usage.byModel({ appUuid: t.appUuid, ...LOOKED_UP, livemode: true });
  const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    requests: sum((r) => r.requests),
    refused: sum((r) => r.refused),
    input: sum((r) => r.inputTokens),
    output: sum((r) => r.outputTokens),
    cached: sum((r) => r.cacheReadTokens),
    charged: sum((r) => r.chargedMicro),
  };
}

describe('GET /metrics agrees with the usage rows', () => {
  let cached = 0;

  beforeAll(async () => {
    const ask = () =>
      sdk().chat.completions.create({
        model: 'acme/gpt-fake',
        max_tokens: 20,
        messages: [
          { role: 'system', content: longPrompt },
          { role: 'user', content: 'hello' },
        ],
      });
    await ask();
    // The same prompt again: read from the upstream's prompt cache.
    const again = await ask();
    cached = again.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(1024);

    const stream = await sdk().chat.completions.create({ model: 'acme/gpt-fake', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'stream a few words' }] });
    for await (const chunk of stream) void chunk;

    // Refused before the upstream: it may cost more than the balance.
    const refused = await t.call('POST', `${API}/chat/completions`, { body: { model: 'acme/gpt-fake', max_tokens: 50_000, messages: [{ role: 'user', content: 'too dear' }] } });
    expect(refused.status).toBe(402);

    // The upstream refuses our credentials: an upstream error.
    upstream.script({ kind: 'respond', status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const failed = await t.call('POST', `${API}/chat/completions`, { body: { model: 'acme/gpt-fake', max_tokens: 20, messages: [{ role: 'user', content: 'fails upstream' }] } });
    expect(failed.status).toBeGreaterThanOrEqual(500);

    // Through the route: the first target overloaded, the second answers.
    upstream.script({ kind: 'respond', status: 529, body: { error: { message: 'Overloaded', type: 'overloaded_error' } } });
    const routed = await t.call('POST', `${API}/chat/completions`, { body: { model: 'route/smart', max_tokens: 20, messages: [{ role: 'user', content: 'route me' }] } });
    expect(routed.status).toBe(200);
    expect(routed.body.model).toBe('backup/gpt-fake');
  });

  it('is the Prometheus text format, and its counters equal the usage rows', async () => {
    const response = await scrape();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const m = await parseScrape(text);
    const rows = await usageRows();

    expect(rows.requests).toBe(6);
    expect(m.total('svc_requests_total')).toBe(rows.requests);
    expect(m.total('svc_requests_total', { status: 'refused' })).toBe(rows.refused);
    expect(m.total('svc_requests_total', { status: 'refused', error_type: 'insufficient_credits' })).toBe(1);
    expect(m.total('svc_requests_total', { status: 'ok', gen_ai_provider_name: 'acme', gen_ai_request_model: 'gpt-fake', gen_ai_operation_name: 'chat' })).toBe(3);
    // The routed request is counted under the target that answered.
    expect(m.total('svc_requests_total', { status: 'ok', gen_ai_provider_name: 'backup', gen_ai_request_model: 'gpt-fake' })).toBe(1);
    const errors = m.samples('svc_requests_total', { status: 'error' });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.value).toBe(1);
    expect(errors[0]?.labels.error_type).not.toBe('');

    expect(m.histogram('gen_ai_client_token_usage', { gen_ai_token_type: 'input' }).sum).toBe(rows.input);
    expect(m.histogram('gen_ai_client_token_usage', { gen_ai_token_type: 'output' }).sum).toBe(rows.output);
    expect(m.histogram('gen_ai_client_token_usage', { gen_ai_token_type: 'cached' })).toEqual({ count: 1, sum: cached });
    expect(rows.cached).toBe(cached);
    expect(m.total('svc_charged_micro_credits_total')).toBe(rows.charged);
    expect(rows.charged).toBeGreaterThan(0);

    // Every request that reached the upstream has a duration; the refused one does not.
    expect(m.histogram('gen_ai_server_request_duration_seconds').count).toBe(rows.requests - rows.refused);
    expect(m.histogram('gen_ai_server_request_duration_seconds', { error_type: '' }).count).toBe(4);

    // Each upstream try: five requests reached it, the routed one twice (acme overloaded, then backup).
    expect(m.total('svc_upstream_attempts_total')).toBe(6);
    expect(m.total('svc_upstream_attempts_total', { route: 'route/smart' })).toBe(2);
    expect(m.total('svc_upstream_errors_total', { route: 'route/smart', gen_ai_provider_name: 'acme', error_class: 'overloaded' })).toBe(1);
    expect(m.total('svc_upstream_fallbacks_total', { route: 'route/smart', gen_ai_provider_name: 'backup' })).toBe(1);
    expect(m.total('svc_upstream_errors_total')).toBe(2);
    expect(m.histogram('gen_ai_server_time_to_first_token_seconds').count).toBeGreaterThanOrEqual(1);
    // Every hold was settled.
    expect(m.total('svc_holds_in_flight')).toBe(0);

    // Bounded labels: no key, app or secret anywhere in the scrape.
    for (const secret of [t.liveKey, t.testKey, t.appUuid, upstream.apiKey]) expect(text).not.toContain(secret);
  });

  it('breaker states as the breaker store has them (another instance may have moved them), and attempts as the routes report them', async () => {
    await setBreaker(t, 'acme/gpt-fake', 'open');
    t.server.observer.breakerChanged('nobody/made-up', 'open');
    t.server.observer.attemptEnded({ route: 'smart', provider: 'acme', model: 'gpt-fake', outcome: 'rate_limited', latencyMs: 120, retry: false, fallback: false });
    t.server.observer.attemptEnded({ route: 'smart', provider: 'acme', model: 'gpt-fake', outcome: 'ok', latencyMs: 80, retry: true, fallback: false });
    const m = await parseScrape(await (await scrape()).text());
    expect(m.total('svc_circuit_breaker_state', { target: 'acme/gpt-fake', state: 'open' })).toBe(1);
    expect(m.total('svc_circuit_breaker_state', { target: 'acme/gpt-fake', state: 'closed' })).toBe(0);
    // A target the server does not serve never becomes a label.
    expect(m.samples('svc_circuit_breaker_state', { target: 'nobody/made-up' })).toHaveLength(0);
    expect(m.total('svc_upstream_errors_total', { route: 'smart', error_class: 'rate_limited' })).toBe(1);
    expect(m.total('svc_upstream_attempts_total', { route: 'smart' })).toBe(2);
    expect(m.total('svc_upstream_retries_total', { route: 'smart' })).toBe(1);
    const view = (await t.call('GET', `${API}/providers/status`)).body.data;
    expect(view.find((row: { target: string }) => row.target === 'acme/gpt-fake')).toEqual({ target: 'acme/gpt-fake', breaker: 'open' });

    await setBreaker(t, 'acme/gpt-fake', 'half_open');
    const again = await parseScrape(await (await scrape()).text());
    expect(again.total('svc_circuit_breaker_state', { target: 'acme/gpt-fake', state: 'half_open' })).toBe(1);
    expect(again.total('svc_circuit_breaker_state', { target: 'acme/gpt-fake', state: 'open' })).toBe(0);
    await setBreaker(t, 'acme/gpt-fake', 'closed');
  });

  it('a refused request is counted with its error code; a model the server does not serve is no label', async () => {
    const before = await parseScrape(await (await scrape()).text());
    // A test key may reach only the local provider: refused, with the model's label kept as it is served.
    const refused = await t.call('POST', `${API}/chat/completions`, { key: t.testKey, body: { model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'x' }] } });
    expect(refused.status).toBe(403);
    const after = await parseScrape(await (await scrape()).text());
    const labels = { status: 'refused', error_type: 'test_key_not_allowed', gen_ai_request_model: 'gpt-fake' };
    expect(after.total('svc_requests_total', labels) - before.total('svc_requests_total', labels)).toBe(1);

    // A refusal's row keeps whatever model the body named: its label is `unknown`, never the name.
    const row = { requestId: 'req_x', appUuid: t.appUuid, keyId: null, address: null, provider: 'acme', model: 'anything-a-caller-typed', operation: 'chat.completions', livemode: true, inputTokens: 0, outputTokens: 0, costMicro: 0, latencyMs: 0, ttftMs: null, status: 'refused' as const, errorCode: 'rate_limit_exceeded', at: LOOKED_UP.start };
    t.server.observer.usageRecorded(row, 0);
    const text = await (await scrape()).text();
    expect(text).not.toContain('anything-a-caller-typed');
    expect((await parseScrape(text)).total('svc_requests_total', { gen_ai_provider_name: 'acme', gen_ai_request_model: 'unknown', error_type: 'rate_limit_exceeded' })).toBe(1);
  });
});

describe('who may scrape', () => {
  it('without SVC_METRICS_TOKEN: this host only, not a request a proxy passed on', async () => {
    const forwarded = await scrape(t.url, { 'x-forwarded-for': '203.0.113.7' });
    expect(forwarded.status).toBe(403);
    expect(await forwarded.json()).toMatchObject({ error: { type: 'permission_denied', code: 'metrics_loopback_only' } });
    // Whatever header a same-host proxy marks its requests with, even empty: not this host.
    const marks: Record<string, string>[] = [
      { forwarded: 'for=203.0.113.7;proto=https' },
      { 'x-real-ip': '203.0.113.7' },
      { 'x-forwarded-host': 'svc.example.com' },
      { 'x-forwarded-proto': 'https' },
      { via: '1.1 proxy' },
      { 'cf-connecting-ip': '203.0.113.7' },
      { 'true-client-ip': '203.0.113.7' },
      { 'x-client-ip': '203.0.113.7' },
      { 'x-forwarded-for': '' },
    ];
    for (const headers of marks) {
      const passedOn = await scrape(t.url, headers);
      expect({ headers, status: passedOn.status }).toEqual({ headers, status: 403 });
      expect(((await passedOn.json()) as { error: { message: string } }).error.message).toContain(`forwarded (${Object.keys(headers)[0]})`);
    }
    expect((await scrape(t.url)).status).toBe(200);
    const posted = await fetch(`${t.url}/metrics`, { method: 'POST' });
    expect(posted.status).toBe(405);
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  it.skipIf(!external)('without SVC_METRICS_TOKEN: refused from another address', async () => {
    const server = await startTestServer({ host: '0.0.0.0' });
    try {
      const fromOutside = await fetch(`http://${external!.address}:${server.server.port}/metrics`);
      expect(fromOutside.status).toBe(403);
      expect(await fromOutside.json()).toMatchObject({ error: { code: 'metrics_loopback_only' } });
      expect((await fetch(`http://127.0.0.1:${server.server.port}/metrics`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('with SVC_METRICS_TOKEN: the bearer token, from anywhere; nothing without it', async () => {
    const server = await startTestServer({ env: { SVC_METRICS_TOKEN: TOKEN } });
    try {
      const none = await scrape(server.url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect(await none.json()).toMatchObject({ error: { type: 'authentication_error' } });
      const wrong = await scrape(server.url, { authorization: `Bearer ${TOKEN}x` });
      expect(wrong.status).toBe(401);
      // An API key is no metrics token, not even the owner's admin key.
      expect((await scrape(server.url, { authorization: `Bearer ${server.liveKey}` })).status).toBe(401);
      const right = await scrape(server.url, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.7' });
      expect(right.status).toBe(200);
      expect((await parseScrape(await right.text())).total('svc_holds_in_flight')).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a token shorter than 16 characters refuses to start', async () => {
    await expect(startServer({ dbPath: ':memory:', port: 0, log: () => {}, env: { SVC_METRICS_TOKEN: 'short' } })).rejects.toThrow(/SVC_METRICS_TOKEN must be at least 16 characters/);
  });
});
