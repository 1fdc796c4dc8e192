import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../helpers/api.js';
import { chatCompletion, completedResponse, heldFor as heldForOn, liveKeyOf, startRecordingUpstream, type RecordingUpstream } from '../helpers/holds-burst.js';
import { toMicro } from '../helpers/reliability.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A hold is an upper bound only if the upstream cannot write more than it: a charge above the
 * hold is cut to what the balance has (metering settles min(cost, available)), so the request is
 * served below its cost. An OpenAI-type upstream writes as much as it is told, or as much as it
 * likes when it is told nothing — and the chat and Responses services hold for the model's
 * default output (4,096 unless configured) without telling the upstream (chat.ts, responses.ts).
 */

/** Writes as an OpenAI-compatible host that reads only `max_tokens` (Ollama, older vLLM, many proxies) does; untold, this many tokens. */
const UNTOLD_OUTPUT = 6000;

/** Answers as such a host: the output it is told, at most UNTOLD_OUTPUT; a Responses answer at the tier asked for. */
function writtenAnswer(path: string, body: Record<string, unknown>) {
  const limit = (value: unknown) => (typeof value === 'number' ? Math.min(value, UNTOLD_OUTPUT) : UNTOLD_OUTPUT);
  if (path.endsWith('/responses')) {
    // Served at the tier asked for, as OpenAI does for a project that has it.
    return { ...completedResponse(body.model, 'word '.repeat(10), { input: 5, output: limit(body.max_output_tokens) }), service_tier: body.service_tier ?? 'default' };
  }
  return chatCompletion(body.model, 'word '.repeat(10), { input: 5, output: limit(body.max_tokens) }, 'length');
}

let upstream: RecordingUpstream;
let t: TestServer;

/** 0.1 credit an input token, 0.2 an output token. */
const PRICES = { input_price: 1000, output_price: 2000 } as const;
const DEFAULT_OUTPUT = 4096;

beforeAll(async () => {
  upstream = await startRecordingUpstream(writtenAnswer);
  const file = writeProvidersFile({
    providers: [{ id: 'host', type: 'openai', base_url: upstream.url, api_key_env: 'UP_KEY', supports_responses: true, models: [{ id: 'writer', ...PRICES, context_length: 128_000 }] }],
  });
  t = await startTestServer({ providersFile: file, env: { UP_KEY: 'up-key' } });
});
afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const keyWith = async (balanceCredits: number) => (await liveKeyOf(t, balanceCredits)).key;
const heldFor = (path: string, body: unknown) => heldForOn(t, path, body);

const lastSent = () => upstream.requests.at(-1)?.body ?? {};
const chat = (extra: Record<string, unknown> = {}) => ({ model: 'host/writer', messages: [{ role: 'user', content: 'Write at length.' }], ...extra });
/** What `completion_tokens` output tokens and 5 input tokens cost, in micro-credits. */
const costOf = (outputTokens: number) => toMicro(5 * 0.1 + outputTokens * 0.2);

describe('a chat completion that names no output limit', () => {
  it('is held for the default 4,096 output tokens and sent that limit, which the upstream keeps to', async () => {
    const held = await heldFor('/chat/completions', chat());
    expect(held).toBeLessThan(DEFAULT_OUTPUT * 0.2 + 20);
    const answer = await t.call('POST', `${API}/chat/completions`, { key: await keyWith(10_000), body: chat() });
    expect(answer.status).toBe(200);
    expect(lastSent().max_tokens).toBe(DEFAULT_OUTPUT);
    expect(answer.body.usage.completion_tokens).toBeLessThanOrEqual(DEFAULT_OUTPUT);
  });

  it('is charged its whole cost on a balance that pays for its hold', async () => {
    const key = await keyWith((await heldFor('/chat/completions', chat())) + 1);
    const answer = await t.call('POST', `${API}/chat/completions`, { key, body: chat() });
    expect(answer.status).toBe(200);
    expect(toMicro(answer.body.usage.cost)).toBe(costOf(answer.body.usage.completion_tokens));
  });

  it('is sent the output limit it was held for', async () => {
    await t.call('POST', `${API}/chat/completions`, { key: await keyWith(10_000), body: chat() });
    const sent = lastSent();
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBe(DEFAULT_OUTPUT);
  });
});

describe('a chat completion that names two output limits', () => {
  const both = chat({ max_completion_tokens: 10, max_tokens: 100_000 });

  it('is held for the larger of the two (a host may read either)', async () => {
    const key = await keyWith((await heldFor('/chat/completions', both)) + 1);
    const answer = await t.call('POST', `${API}/chat/completions`, { key, body: both });
    expect(answer.status).toBe(200);
    expect(toMicro(answer.body.usage.cost)).toBe(costOf(answer.body.usage.completion_tokens));
  });
});

describe('a native Responses request that names no max_output_tokens', () => {
  const body = { model: 'host/writer', input: 'Write at length.' };

  it('is sent the max_output_tokens it was held for', async () => {
    const key = await keyWith((await heldFor('/responses', body)) + 1);
    const answer = await t.call('POST', `${API}/responses`, { key, body });
    expect(answer.status).toBe(200);
    expect(lastSent().max_output_tokens).toBe(DEFAULT_OUTPUT);
    expect(toMicro(answer.body.usage.cost)).toBe(costOf(answer.body.usage.output_tokens));
  });
});

describe('a service tier the model has no price for', () => {
  it('a chat completion asking for priority is refused by name (the chat service checks it)', async () => {
    const answer = await t.call('POST', `${API}/chat/completions`, { key: await keyWith(10_000), body: chat({ max_tokens: 10, service_tier: 'priority' }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('service_tier');
  });

  it('a native Responses request asking for priority is refused the same way, not billed standard for a priority answer', async () => {
    const before = upstream.requests.length;
    const answer = await t.call('POST', `${API}/responses`, { key: await keyWith(10_000), body: { model: 'host/writer', input: 'Hi', max_output_tokens: 10, service_tier: 'priority' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('service_tier');
    expect(upstream.requests.length).toBe(before);
  });
});

