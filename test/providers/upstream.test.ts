import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUpstream, faultOf, retryAfterSeconds, type Upstream, type UpstreamOptions } from '../../server/providers/upstream.js';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { freePort } from '../helpers/ports.js';

const KEY = 'sk-fake-upstream-test-0123456789';

let fake: FakeOpenAI;
const opened: Upstream[] = [];

beforeEach(async () => {
  fake = await startFakeOpenAI({ apiKey: KEY });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((u) => u.close()));
  await fake.close();
});

/** An upstream to the fake. */
function connect(options: Partial<UpstreamOptions> = {}) {
  const upstream = createUpstream({ provider: 'fake', baseUrl: fake.url, headers: { authorization: `Bearer ${KEY}` }, ...options });
  opened.push(upstream);
  return { upstream };
}

const signal = () => new AbortController().signal;
const chat = { model: 'gpt-fake', messages: [{ role: 'user', content: 'hi' }] };
const completion = (upstream: Upstream) => upstream.json<{ object: string }>('/chat/completions', { body: chat, signal: signal() });

const openAIError = (message: string, type = 'invalid_request_error') => ({ error: { message, type, param: null, code: null } });

/** What a failed call threw: the API's error and its fault (the routing policy retries and moves on, not the upstream). */
const failure = (upstream: Upstream) => completion(upstream).then(
  () => expect.unreachable('the call should fail'),
  (error: unknown) => ({ error, fault: faultOf(error) }),
);

describe('one try per call, each failure with its fault for the routing policy', () => {
  it('a 5xx, a 529, a 429 with retry-after: each tried once, repeatable, retry-after read', async () => {
    const { upstream } = connect();
    fake.script(
      { kind: 'respond', status: 500, body: openAIError('boom', 'server_error') },
      { kind: 'respond', status: 529, body: '' },
      { kind: 'respond', status: 429, headers: { 'retry-after': '2' }, body: openAIError('Rate limit reached', 'requests') },
    );
    expect((await failure(upstream)).fault).toEqual({ failure: 'server_error', repeatable: true, retryAfterMs: null });
    expect((await failure(upstream)).fault).toEqual({ failure: 'overloaded', repeatable: true, retryAfterMs: null });
    expect((await failure(upstream)).fault).toEqual({ failure: 'rate_limited', repeatable: true, retryAfterMs: 2000 });
    expect(fake.requests).toHaveLength(3);
  });

  it('a connection destroyed before the headers is a repeatable connection failure', async () => {
    const { upstream } = connect();
    fake.script({ kind: 'destroy' });
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'connection', repeatable: true });
  });

  it('no headers in time is a timeout that must not be sent again to the same target (it may be doing the work)', async () => {
    const { upstream } = connect({ timeouts: { firstByteMs: 100 } });
    fake.script({ kind: 'hang' });
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'timeout', repeatable: false });
  });

  it('our credentials or quota refused (401, 402, 403) is auth; a context-length 400 is context_length; another 400 is the request’s', async () => {
    const { upstream } = connect();
    fake.script(
      { kind: 'respond', status: 402, body: openAIError('You exceeded your current quota', 'insufficient_quota') },
      { kind: 'respond', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } },
      { kind: 'respond', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } },
      { kind: 'respond', status: 422, body: openAIError('bad temperature') },
    );
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'auth', repeatable: false });
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'context_length' });
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'context_length' });
    expect((await failure(upstream)).fault).toMatchObject({ failure: 'request', repeatable: false });
  });

  it('a refused connection is a 502 upstream_unreachable that does not name the address', async () => {
    const { upstream } = connect({ baseUrl: `http://127.0.0.1:${await freePort()}/v1` });
    await expect(completion(upstream)).rejects.toMatchObject({
      status: 502,
      type: 'upstream_error',
      code: 'upstream_unreachable',
      message: expect.stringMatching(/^(?!.*127\.0\.0\.1).*ECONNREFUSED/),
    });
  });

  it('reads retry-after as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('2')).toBe(2);
    expect(retryAfterSeconds(new Date(10_000).toUTCString(), 0)).toBe(10);
    expect(retryAfterSeconds('soon')).toBeNull();
  });
});

describe('upstream failures', () => {
  const contains = (text: string) => expect.stringContaining(text);
  const cases: [string, Partial<UpstreamOptions>, Behaviour, Record<string, unknown>][] = [
    [
      'no headers within firstByteMs is a 504',
      { timeouts: { firstByteMs: 100 } },
      { kind: 'hang' },
      { status: 504, type: 'upstream_timeout', message: contains('first byte') },
    ],
    [
      'a JSON body that stalls after the headers is a 504',
      { timeouts: { idleMs: 100 } },
      { kind: 'stall', after: 0 },
      { status: 504, type: 'upstream_timeout', message: contains('idle') },
    ],
    [
      'a body that breaks off is a 502 upstream_bad_response',
      {},
      { kind: 'cut', after: 0 },
      { status: 502, code: 'upstream_bad_response', message: contains('broke off') },
    ],
    [
      'a 200 whose body is not JSON is a 502 upstream_bad_response',
      {},
      { kind: 'garbage' },
      { status: 502, code: 'upstream_bad_response', message: contains('not JSON') },
    ],
    [
      'a 400 is passed on as invalid_request_error with the upstream’s message',
      {},
      { kind: 'respond', status: 400, body: openAIError("Invalid value for 'temperature': must be at most 2.") },
      { status: 400, type: 'invalid_request_error', code: 'upstream_rejected', message: contains("'temperature': must be at most 2.") },
    ],
    [
      'an upstream message that quotes the key, bare or with its scheme, has it taken out',
      {},
      { kind: 'respond', status: 404, body: openAIError(`No model for ${KEY} (Bearer ${KEY})`) },
      { status: 400, message: expect.not.stringContaining(KEY) },
    ],
    [
      'a 5xx is a 502 without the upstream’s body',
      {},
      { kind: 'respond', status: 500, body: openAIError('internal trace: db01.internal', 'server_error') },
      { status: 502, code: 'upstream_error', message: expect.not.stringContaining('db01') },
    ],
    [
      'a 429 is passed on with its retry-after',
      {},
      { kind: 'respond', status: 429, headers: { 'retry-after': '30' }, body: openAIError('Rate limit reached', 'requests') },
      { status: 429, type: 'rate_limit_exceeded', code: 'upstream_rate_limited', headers: { 'retry-after': '30' } },
    ],
  ];

  it.each(cases)('%s', async (_name, options, behaviour, expected) => {
    const { upstream } = connect(options);
    fake.script(behaviour);
    await expect(completion(upstream)).rejects.toMatchObject({ name: 'ApiError', ...expected });
    expect(fake.requests).toHaveLength(1);
  });

  it('a stream that stalls for idleMs is a 504 while reading', async () => {
    const { upstream } = connect({ timeouts: { idleMs: 100 } });
    fake.script({ kind: 'stall', after: 2 });
    const s = signal();
    const response = await upstream.send('/chat/completions', { body: { ...chat, stream: true }, signal: s });
    const read: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of upstream.read(response, s)) read.push(chunk);
    })();
    await expect(reading).rejects.toMatchObject({ name: 'ApiError', status: 504, message: contains('idle') });
    expect(Buffer.concat(read).toString()).toContain('"role":"assistant"');
  });

  it('a 401 is a 502 upstream_auth_failed that never shows the key (the fake quotes it)', async () => {
    const wrongKey = 'sk-wrong-0123456789abcdef';
    const { upstream } = connect({ headers: { authorization: `Bearer ${wrongKey}` } });
    const failure: unknown = await completion(upstream).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'ApiError', status: 502, type: 'upstream_error', code: 'upstream_auth_failed' });
    expect(JSON.stringify({ ...(failure as Error), message: (failure as Error).message })).not.toContain(wrongKey);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('upstream connections', () => {
  it('keeps connections alive between requests', async () => {
    const { upstream } = connect();
    const models = await upstream.json<{ data: { id: string }[] }>('/models', { method: 'GET', signal: signal() });
    expect(models.data.map((m) => m.id)).toContain('gpt-fake');
    for (let i = 0; i < 5; i++) await completion(upstream);
    const ports = new Set(fake.requests.map((r) => r.clientPort));
    expect(fake.requests).toHaveLength(6);
    expect(ports.size).toBeLessThanOrEqual(2);
  });
});
