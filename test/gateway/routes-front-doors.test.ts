import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UsageEvent } from '../../server/store/types.js';
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicBehaviour } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API, expectStatus } from '../helpers/api.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FAKE_ANTHROPIC_KEY } from '../helpers/upstreams.js';

/**
 * Routes behind every front door: the Messages API relayed over Anthropic targets (same
 * protocol) and translated over a route that mixes protocols, the Responses API native and
 * translated, embeddings; and the usage row that names the target and the attempts before it.
 */
let alpha: FakeOpenAI;
let claude: FakeAnthropic;
let t: TestServer;
let rows: UsageEvent[];

beforeEach(async () => {
  alpha = await startFakeOpenAI();
  claude = await startFakeAnthropic({ apiKey: FAKE_ANTHROPIC_KEY });
  const file = writeProvidersFile({
    providers: [
      {
        id: 'alpha',
        type: 'openai',
        base_url: alpha.url,
        api_key_env: 'ALPHA_KEY',
        supports_responses: true,
        models: [
          { id: 'gpt-a', input_price: 1, output_price: 2 },
          { id: 'embed-a', input_price: 0.1, output_price: 0, capabilities: ['embeddings'] },
        ],
      },
      {
        id: 'claude',
        type: 'anthropic',
        base_url: claude.url,
        api_key_env: 'CLAUDE_KEY',
        models: [
          { id: 'claude-haiku-4-5', input_price: 1, output_price: 5 },
          { id: 'claude-sonnet-4-5', input_price: 3, output_price: 15 },
        ],
      },
    ],
    routes: {
      claudes: { strategy: 'fallback', targets: [{ model: 'claude/claude-haiku-4-5' }, { model: 'claude/claude-sonnet-4-5' }] },
      mixed: { strategy: 'fallback', targets: [{ model: 'claude/claude-haiku-4-5' }, { model: 'alpha/gpt-a' }] },
      answers: { strategy: 'fallback', targets: [{ model: 'alpha/gpt-a' }, { model: 'claude/claude-sonnet-4-5' }] },
      vectors: { strategy: 'fallback', targets: [{ model: 'alpha/embed-a' }, { model: 'local/embed' }] },
    },
  });
  t = await startTestServer({ providersFile: file, env: { ALPHA_KEY: alpha.apiKey, CLAUDE_KEY: FAKE_ANTHROPIC_KEY } });
  // The usage rows as they are written (the store's own settle, watched).
  rows = [];
  const metering = t.server.store.metering;
  const settle = metering.settle.bind(metering);
  Object.assign(metering, { settle: (...args: Parameters<typeof settle>) => (rows.push(args[3]), settle(...args)) });
});

afterEach(async () => {
  await t?.close();
  await alpha?.close();
  await claude?.close();
});

const overloaded: FakeAnthropicBehaviour = { kind: 'error', status: 529, errorType: 'overloaded_error' };
const messages = (model: string, extra: Record<string, unknown> = {}) =>
  t.call('POST', `${API}/messages`, {
    headers: { 'anthropic-version': '2023-06-01' },
    body: { model, max_tokens: 40, messages: [{ role: 'user', content: 'hello messages' }], ...extra },
  });

describe('the Messages API', () => {
  it('relays over a route of Anthropic targets: the second answers as sent, the usage row names it and the attempts before', async () => {
    claude.script(overloaded, overloaded, overloaded);
    const answer = await messages('route/claudes');
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ type: 'message', model: 'claude/claude-sonnet-4-5' });
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^(claude\/claude-haiku-4-5=overloaded;\d+ms, ){3}claude\/claude-sonnet-4-5=ok$/);
    expect(claude.requests.at(-1)?.body).toMatchObject({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hello messages' }] });
    expect(rows).toEqual([
      expect.objectContaining({
        provider: 'claude',
        model: 'claude-sonnet-4-5',
        status: 'ok',
        attempts: [1, 2, 3].map(() => ({ model: 'claude/claude-haiku-4-5', errorClass: 'overloaded', latencyMs: expect.any(Number) })),
      }),
    ]);
  });

  it('when no target answers, the usage row names the last one tried, with every try, and charges nothing', async () => {
    claude.script(...Array.from({ length: 6 }, () => overloaded));
    const answer = await messages('route/claudes');
    expect(answer.status).toBe(529);
    expect(rows).toEqual([
      expect.objectContaining({ provider: 'claude', model: 'claude-sonnet-4-5', status: 'error', costMicro: 0, attempts: expect.any(Array) }),
    ]);
    expect(rows[0]!.attempts!.map((a) => `${a.model} ${a.errorClass}`)).toEqual([
      ...Array.from({ length: 3 }, () => 'claude/claude-haiku-4-5 overloaded'),
      ...Array.from({ length: 3 }, () => 'claude/claude-sonnet-4-5 overloaded'),
    ]);
  });

  it('streams relayed from the second target when the first fails before its first event', async () => {
    claude.script(overloaded, overloaded, overloaded);
    const response = await fetch(`${t.url}${API}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'route/claudes', max_tokens: 40, stream: true, messages: [{ role: 'user', content: 'stream please' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"model":"claude/claude-sonnet-4-5"');
    expect(text).toContain('event: message_stop');
    expect(text).not.toContain('event: error');
  });

  it('a relayed stream cut after its first event ends with event: error, is not sent to the next target, and pays for what was produced', async () => {
    claude.script({ kind: 'stream_error', errorType: 'overloaded_error', afterDeltas: 2 });
    const response = await fetch(`${t.url}${API}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'route/claudes', max_tokens: 40, stream: true, messages: [{ role: 'user', content: 'say a b c d e f g h' }] }),
    });
    const text = await response.text();
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error\n/);
    expect(claude.requests).toHaveLength(1);
    expect(rows).toEqual([expect.objectContaining({ model: 'claude-haiku-4-5', status: 'error' })]);
    expect(rows[0]!.outputTokens).toBeGreaterThan(0);
  });

  it('serves a route that mixes protocols translated: the OpenAI target answers in Anthropic’s shape', async () => {
    claude.script(overloaded, overloaded, overloaded);
    const answer = await messages('route/mixed');
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ type: 'message', role: 'assistant' });
    expect(JSON.stringify(answer.body.content)).toContain('hello messages');
    expect(alpha.requests.at(-1)?.body).toMatchObject({ model: 'gpt-a' });
    expect(rows).toEqual([expect.objectContaining({ provider: 'alpha', model: 'gpt-a', status: 'ok' })]);
  });
});

describe('the Responses API', () => {
  it('falls back from a native target to a translated one, and the response names the target', async () => {
    alpha.script({ kind: 'destroy' }, { kind: 'destroy' }, { kind: 'destroy' });
    const answer = await t.call('POST', `${API}/responses`, { body: { model: 'route/answers', input: 'hello responses', max_output_tokens: 40 } });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ object: 'response', status: 'completed', model: 'claude/claude-sonnet-4-5' });
    expect(answer.headers.get('x-svc-route')).toBe('route/answers');
    expect(rows).toEqual([expect.objectContaining({ provider: 'claude', model: 'claude-sonnet-4-5' })]);
    // Kept as answered: GET reads the same target.
    expect((await t.call('GET', `${API}/responses/${answer.body.id}`)).body.model).toBe('claude/claude-sonnet-4-5');
  });

  it('streams from the first target that starts, with `models` fallbacks', async () => {
    alpha.script({ kind: 'destroy' }, { kind: 'destroy' }, { kind: 'destroy' });
    const response = await fetch(`${t.url}${API}/responses`, {
      method: 'POST',
      headers: { 'x-api-key': t.liveKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'alpha/gpt-a', models: ['claude/claude-haiku-4-5'], input: 'stream responses', stream: true, max_output_tokens: 40 }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svc-attempts')).toMatch(/claude\/claude-haiku-4-5=ok$/);
    const text = await response.text();
    expect(text).toContain('event: response.completed');
    expect(text).toContain('"model":"claude/claude-haiku-4-5"');
    expect(claude.requests.at(-1)?.body).not.toHaveProperty('models');
  });
});

describe('embeddings', () => {
  it('fall back along a route of embedding models', async () => {
    alpha.script({ kind: 'respond', status: 503, body: '' }, { kind: 'respond', status: 503, body: '' }, { kind: 'respond', status: 503, body: '' });
    const answer = await t.call('POST', `${API}/embeddings`, { body: { model: 'route/vectors', input: 'embed me' } });
    expectStatus(answer, 200);
    expect(answer.body.model).toBe('local/embed');
    expect(answer.headers.get('x-svc-attempts')).toMatch(/^(alpha\/embed-a=server_error;\d+ms, ){3}local\/embed=ok$/);
  });
});
