import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API, expectApiError, expectStatus } from '../helpers/api.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Routes and `models` fallbacks end to end: three fake OpenAI upstreams behind a providers file
 * (`alpha` cheap with a small window, `beta` dear with a large one, `gamma` for the breaker,
 * `slow` with a short first-byte timeout),
 * requests through svc, and what each upstream received.
 */
let alpha: FakeOpenAI;
let beta: FakeOpenAI;
let gamma: FakeOpenAI;
let slow: FakeOpenAI;
let t: TestServer;

const PRICES = { alpha: { input: 1, output: 2 }, beta: { input: 5, output: 10 } };

beforeEach(async () => {
  [alpha, beta, gamma, slow] = await Promise.all([startFakeOpenAI(), startFakeOpenAI(), startFakeOpenAI(), startFakeOpenAI()]);
  const file = writeProvidersFile({
    providers: [
      { id: 'alpha', type: 'openai', base_url: alpha.url, api_key_env: 'ALPHA_KEY', models: [{ id: 'gpt-a', input_price: PRICES.alpha.input, output_price: PRICES.alpha.output, context_length: 8_000 }] },
      { id: 'beta', type: 'openai', base_url: beta.url, api_key_env: 'BETA_KEY', models: [{ id: 'gpt-b', input_price: PRICES.beta.input, output_price: PRICES.beta.output, context_length: 128_000 }] },
      // Slow: no answer within 300 ms is a timeout.
      { id: 'slow', type: 'openai', base_url: slow.url, api_key_env: 'SLOW_KEY', timeouts: { first_byte_ms: 300 }, models: [{ id: 'gpt-s', input_price: 1, output_price: 2 }] },
      // One try per request: each failure counts once towards the breaker.
      { id: 'gamma', type: 'openai', base_url: gamma.url, api_key_env: 'GAMMA_KEY', retries: 0, models: [{ id: 'gpt-g', input_price: 1, output_price: 2 }] },
    ],
    routes: {
      smart: { strategy: 'fallback', targets: [{ model: 'alpha/gpt-a' }, { model: 'beta/gpt-b' }] },
      cheap: { strategy: 'weighted', targets: [{ model: 'alpha/gpt-a', weight: 3 }, { model: 'beta/gpt-b', weight: 1 }] },
      guarded: { strategy: 'fallback', targets: [{ model: 'gamma/gpt-g' }, { model: 'beta/gpt-b' }] },
      patient: { strategy: 'fallback', targets: [{ model: 'slow/gpt-s' }, { model: 'beta/gpt-b' }] },
      // Listed by GET /models; how it orders its targets is test/gateway/latency-route.test.ts (by the clock).
      quickest: { strategy: 'latency', targets: [{ model: 'slow/gpt-s' }, { model: 'beta/gpt-b' }] },
    },
  });
  t = await startTestServer({ providersFile: file, env: { ALPHA_KEY: alpha.apiKey, BETA_KEY: beta.apiKey, GAMMA_KEY: gamma.apiKey, SLOW_KEY: slow.apiKey } });
});

afterEach(async () => {
  await t?.close();
  await Promise.all([alpha, beta, gamma, slow].map((fake) => fake?.close()));
});

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  t.call('POST', `${API}/chat/completions`, { body: { model, max_tokens: 50, messages: [{ role: 'user', content: 'hello route' }], ...extra } });
const times = (n: number, behaviour: Behaviour) => Array.from({ length: n }, () => behaviour);
const down: Behaviour = { kind: 'destroy' };
const overloaded: Behaviour = { kind: 'respond', status: 529, body: { error: { message: 'Overloaded', type: 'overloaded_error' } } };
const chatRequests = (fake: FakeOpenAI) => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;
const balance = async () => {
  const body = (await t.call('GET', `${API}/credits/balance`)).body;
  return { micro: Math.round(body.credits * 1e6), held: body.held_credits };
};

describe('a fallback route', () => {
  it('tries its targets in order: the first down, the second answers under its own id, paid at its prices', async () => {
    alpha.script(...times(3, down));
    const before = await balance();
    const answer = await chat('route/smart');
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('beta/gpt-b');
    expect(answer.headers.get('x-svc-route')).toBe('route/smart');
    // Tried three times (two retries) before moving on; the served target last.
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^alpha\/gpt-a=connection;\d+ms, alpha\/gpt-a=connection;\d+ms, alpha\/gpt-a=connection;\d+ms, beta\/gpt-b=ok$/);
    expect(chatRequests(alpha)).toBe(3);
    expect(chatRequests(beta)).toBe(1);
    const { prompt_tokens: input, completion_tokens: output } = answer.body.usage;
    const after = await balance();
    // Failed attempts cost nothing: the charge is beta's price for beta's tokens, exactly.
    // USD per million tokens: 100 micro-credits a token per dollar.
    expect(before.micro - after.micro).toBe(100 * (input * PRICES.beta.input + output * PRICES.beta.output));
    expect(after.held).toBe(0);
    const usage = await t.call('GET', `${API}/usage/models`);
    expect(usage.body.data).toEqual([expect.objectContaining({ model: 'beta/gpt-b', requests: 1 })]);
  });

  it('answers from the first target when it is up; a single model names no route', async () => {
    const answer = await chat('route/smart');
    expect(answer.body.model).toBe('alpha/gpt-a');
    expect(answer.headers.get('x-svc-attempts')).toBe('alpha/gpt-a=ok');
    const direct = await chat('alpha/gpt-a');
    expect(direct.headers.get('x-svc-route')).toBeNull();
    expect(chatRequests(beta)).toBe(0);
  });

  it('streams from the second target when the first fails before its first byte; the stream is clean', async () => {
    alpha.script(...times(3, overloaded));
    const response = await fetch(`${t.url}${API}/chat/completions`, {
      method: 'POST',
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'route/smart', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream me' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svc-attempts')).toMatch(/alpha\/gpt-a=overloaded;.*beta\/gpt-b=ok$/);
    const text = await response.text();
    expect(text).not.toContain('"error"');
    expect(text).toContain('"model":"beta/gpt-b"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('a slow target that does not answer in time is not sent the request again (it may be doing the work): the next target is', async () => {
    slow.script({ kind: 'hang' });
    const answer = await chat('route/patient');
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('beta/gpt-b');
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^slow\/gpt-s=timeout;\d+ms, beta\/gpt-b=ok$/);
    expect(chatRequests(slow)).toBe(1);
  });

  it('a caller’s own error is passed on at once: not retried, not sent to the next target', async () => {
    alpha.script({ kind: 'respond', status: 400, body: { error: { message: "Invalid 'temperature'", type: 'invalid_request_error', param: 'temperature', code: null } } });
    const answer = await chat('route/smart');
    expectApiError(answer, 400, { type: 'invalid_request_error' });
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^alpha\/gpt-a=request;\d+ms$/);
    expect(chatRequests(alpha)).toBe(1);
    expect(chatRequests(beta)).toBe(0);
  });

  it('a context-length error moves on to a target with a larger window', async () => {
    alpha.script({
      kind: 'respond',
      status: 400,
      body: { error: { message: "This model's maximum context length is 8000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
    });
    const answer = await chat('route/smart');
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('beta/gpt-b');
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^alpha\/gpt-a=context_length;\d+ms, beta\/gpt-b=ok$/);
    expect(chatRequests(alpha)).toBe(1);
  });

  it('honours Retry-After: the retry waits for it (by the clock), then the same target answers', async () => {
    alpha.script({ kind: 'respond', status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'Rate limit reached', type: 'requests' } } });
    let settled = false;
    const pending = chat('route/smart').finally(() => (settled = true));
    await expect.poll(() => chatRequests(alpha), { timeout: 15_000 }).toBe(1);
    // Past a backoff's first step (at most 250 ms), the request still waits on the upstream's 3 s.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(settled).toBe(false);
    t.clock.advance(3_000);
    const answer = await pending;
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('alpha/gpt-a');
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^alpha\/gpt-a=rate_limited;\d+ms, alpha\/gpt-a=ok$/);
    expect(chatRequests(beta)).toBe(0);
  });

  it('holds for the dearest target the route may use: a balance that covers the first target alone is refused', async () => {
    const { micro } = await balance();
    // An output budget whose hold is 0.4 of the balance at alpha's output price, 2 times it at beta's.
    const maxTokens = Math.floor(micro / (100 * 5));
    expectStatus(await chat('alpha/gpt-a', { max_tokens: maxTokens }), 200);
    const refused = await chat('route/smart', { max_tokens: maxTokens });
    expectApiError(refused, 402, { type: 'insufficient_credits' });
    expect(chatRequests(beta)).toBe(0);
    expect(chatRequests(alpha)).toBe(1);
  });

  it('when every target fails, the last failure is answered, with every attempt named, and nothing is charged', async () => {
    alpha.script(...times(3, down));
    beta.script(...times(3, overloaded));
    const before = await balance();
    const answer = await chat('route/smart');
    expectApiError(answer, 502, { type: 'upstream_error' });
    expect(answer.headers.get('x-svc-attempts')?.split(', ')).toHaveLength(6);
    expect(await balance()).toEqual(before);
  });
});

describe('a weighted route', () => {
  it('spreads 1,000 requests by weight, within ±10%', async () => {
    const served: Record<string, number> = {};
    for (let i = 0; i < 1_000; i += 50) {
      // A minute between batches: the key's request rate limit (600 a minute) is not what is tested.
      t.clock.advance(60_000);
      const answers = await Promise.all(Array.from({ length: 50 }, () => chat('route/cheap')));
      for (const answer of answers) served[answer.body.model] = (served[answer.body.model] ?? 0) + 1;
    }
    expect(served['alpha/gpt-a']).toBeGreaterThanOrEqual(750 * 0.9);
    expect(served['alpha/gpt-a']).toBeLessThanOrEqual(750 * 1.1);
    expect(served['beta/gpt-b']).toBeGreaterThanOrEqual(250 * 0.9);
    expect(served['beta/gpt-b']).toBeLessThanOrEqual(250 * 1.1);
    expect(served['alpha/gpt-a']! + served['beta/gpt-b']!).toBe(1_000);
  });
});

describe('per-request fallbacks (`models`, OpenRouter’s way)', () => {
  it('tries `models` in order after `model`, and never sends the list upstream', async () => {
    alpha.script(...times(3, down));
    const answer = await chat('alpha/gpt-a', { models: ['beta/gpt-b'] });
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('beta/gpt-b');
    expect(answer.headers.get('x-svc-route')).toBe('alpha/gpt-a');
    expect(beta.requests.at(-1)?.body).not.toHaveProperty('models');
  });

  it('a fallback that does not exist is a 404 naming it', async () => {
    const answer = await chat('alpha/gpt-a', { models: ['beta/gpt-b', 'nope/model'] });
    expectApiError(answer, 404, { code: 'model_not_found', param: 'models[1]' });
    expect(chatRequests(alpha)).toBe(0);
  });
});

describe('circuit breakers', () => {
  it('open after 5 failures, skip the dead target unsent, half-open after the cooldown, and close on success', async () => {
    gamma.script(...times(5, down));
    for (let i = 0; i < 5; i++) expect((await chat('route/guarded')).body.model).toBe('beta/gpt-b');
    expect(chatRequests(gamma)).toBe(5);
    // Open: gamma receives nothing, and the answer says why it was skipped.
    for (let i = 0; i < 3; i++) {
      const answer = await chat('route/guarded');
      expect(answer.body.model).toBe('beta/gpt-b');
      expect(answer.headers.get('x-svc-attempts')).toBe('gamma/gpt-g=circuit_open;0ms, beta/gpt-b=ok');
    }
    expect(chatRequests(gamma)).toBe(5);
    // Past the cooldown one probe goes through; it fails, and the breaker opens again.
    t.clock.advance(30_000);
    gamma.script(down);
    expect((await chat('route/guarded')).body.model).toBe('beta/gpt-b');
    expect(chatRequests(gamma)).toBe(6);
    expect((await chat('route/guarded')).headers.get('x-svc-attempts')).toMatch(/^gamma\/gpt-g=circuit_open/);
    expect(chatRequests(gamma)).toBe(6);
    // The next probe succeeds: closed, gamma serves again.
    t.clock.advance(30_000);
    expect((await chat('route/guarded')).body.model).toBe('gamma/gpt-g');
    expect((await chat('route/guarded')).body.model).toBe('gamma/gpt-g');
    expect(chatRequests(gamma)).toBe(8);
  });

  it('a model alone whose breaker is open is answered 503 circuit_open at once, with Retry-After', async () => {
    gamma.script(...times(5, down));
    for (let i = 0; i < 5; i++) await chat('gamma/gpt-g');
    const answer = await chat('gamma/gpt-g');
    expectApiError(answer, 503, { code: 'circuit_open' });
    expect(answer.headers.get('retry-after')).toBe('30');
    expect(chatRequests(gamma)).toBe(5);
  });
});

describe('after the first byte', () => {
  it('a stream cut mid-way ends with an in-band error, is not retried elsewhere, and pays for what was produced', async () => {
    alpha.script({ kind: 'cut', after: 3 });
    const before = await balance();
    const response = await fetch(`${t.url}${API}/chat/completions`, {
      method: 'POST',
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'route/smart', stream: true, messages: [{ role: 'user', content: 'a long enough answer to be cut' }] }),
    });
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toMatch(/^data: \{"error":\{/);
    expect(text).not.toContain('[DONE]');
    expect(chatRequests(beta)).toBe(0);
    const after = await balance();
    expect(after.held).toBe(0);
    expect(before.micro - after.micro).toBeGreaterThan(0);
    const usage = await t.call('GET', `${API}/usage/models`);
    expect(usage.body.data).toEqual([expect.objectContaining({ model: 'alpha/gpt-a', requests: 1 })]);
  });
});

describe('GET /models', () => {
  it('lists routes with their targets, priced as their dearest target', async () => {
    const routes = await t.call('GET', `${API}/models?provider=route`);
    expectStatus(routes, 200);
    expect(routes.body.data.map((m: { id: string }) => m.id)).toEqual(['route/cheap', 'route/guarded', 'route/patient', 'route/quickest', 'route/smart']);
    const smart = routes.body.data.find((m: { id: string }) => m.id === 'route/smart');
    expect(smart).toMatchObject({
      owned_by: 'route',
      context_length: 128_000,
      route: { strategy: 'fallback', targets: [{ model: 'alpha/gpt-a', weight: 1 }, { model: 'beta/gpt-b', weight: 1 }] },
    });
    expect(smart.pricing).toEqual((await t.call('GET', `${API}/models/beta/gpt-b`)).body.pricing);
    expect((await t.call('GET', `${API}/models/route/cheap`)).body.route.targets).toEqual([
      { model: 'alpha/gpt-a', weight: 3 },
      { model: 'beta/gpt-b', weight: 1 },
    ]);
  });
});

describe('routes through the official openai SDK', () => {
  it('a route and a models list answer the SDK as a model would, streamed and not, served by the target that answered', async () => {
    const sdk = new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
    alpha.script(...times(3, down));
    const { data: completion, response } = await sdk.chat.completions
      .create({ model: 'route/smart', max_tokens: 20, messages: [{ role: 'user', content: 'through the sdk' }] })
      .withResponse();
    expect(completion.model).toBe('beta/gpt-b');
    expect(completion.choices[0]?.message.content).toBeTruthy();
    expect(response.headers.get('x-svc-route')).toBe('route/smart');

    alpha.script(...times(3, down));
    const stream = await sdk.chat.completions.create({
      model: 'alpha/gpt-a',
      // OpenRouter's fallbacks: not a field of the SDK's types, sent as is.
      ...({ models: ['beta/gpt-b'] } as object),
      max_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream through the sdk' }],
    });
    const models = new Set<string>();
    let text = '';
    for await (const chunk of stream) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect([...models]).toEqual(['beta/gpt-b']);
    expect(text).toContain('stream through the sdk');
  });
});
