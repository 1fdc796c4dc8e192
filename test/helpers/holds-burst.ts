import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { API, appPath, createOwnerApp } from './api.js';
import type { GatedProxy } from './gated-proxy.js';
import { MICRO, toMicro } from './reliability.js';
import type { TestServer } from './server.js';

/** The prices of the burst's models: 1000 and 2000 USD per million tokens, 0.1 and 0.2 credits a token. */
const PRICES = { input_price: 1000, output_price: 2000 } as const;
const INPUT_MICRO = 100_000;
const OUTPUT_MICRO = 200_000;

/**
 * A providers file for bursts (given the upstreams' URLs, gated or not): `oai/…` on the fake
 * OpenAI (gpt-4o-mini: o200k_base, gpt-4-turbo: cl100k_base, llama-fake: no known tokenizer) and
 * `ant/claude-fake` on the fake Anthropic.
 */
export function burstProvidersFile(urls: { openai: string; anthropic: string }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-providers-')), 'providers.json');
  const model = (id: string) => ({ id, ...PRICES, context_length: 128_000 });
  const providers = [
    { id: 'oai', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: ['gpt-4o-mini', 'gpt-4-turbo', 'llama-fake'].map(model) },
    { id: 'ant', type: 'anthropic', base_url: urls.anthropic, api_key_env: 'FAKE_ANTHROPIC_KEY', models: [model('claude-fake')] },
  ];
  writeFileSync(file, JSON.stringify({ providers }));
  return file;
}

/** One kind of request of a burst: where it goes, and the tokens its answer reports. */
export interface BurstRequest {
  path: string;
  body: Record<string, unknown>;
  tokensOf(answer: any): { input: number; output: number };
}

const costOf = (tokens: { input: number; output: number }) => tokens.input * INPUT_MICRO + tokens.output * OUTPUT_MICRO;

/** A live key of a new app of the owner's with `balanceCredits`. */
export async function liveKeyOf(server: TestServer, balanceCredits: number) {
  const app = await createOwnerApp(server, { balanceCredits });
  const key = (await server.server.services.apiKeys.create(app.appUuid, { name: 'burst', is_test: false })).secret;
  return { appUuid: app.appUuid, key };
}

/**
 * 40 requests at once, spread over `servers`, against an app whose balance pays for `affords`
 * of them at their real cost (the upstream's own count): every request is admitted or refused
 * before any reaches the upstream. At most `affords` are served, each charged its whole cost,
 * nothing stays held and the books balance. Returns how many were served.
 */
export async function burstOverBalance(servers: TestServer[], gates: GatedProxy[], request: BurstRequest, affords: number): Promise<number> {
  const [first] = servers;
  if (!first) throw new Error('no server');
  // What one request really costs: one served alone, on an app with plenty.
  const probe = await liveKeyOf(first, 10_000);
  const alone = await first.call('POST', `${API}${request.path}`, { key: probe.key, body: request.body });
  expect(alone.status).toBe(200);
  const cost = costOf(request.tokensOf(alone.body));
  expect(toMicro(alone.body.usage.cost)).toBe(cost);

  // Enough for `affords` and half of one more.
  const balanceMicro = affords * cost + Math.floor(cost / 2);
  const { appUuid, key } = await liveKeyOf(first, balanceMicro / MICRO);
  gates.forEach((gate) => gate.shut());
  let refused = 0;
  let allDecided: () => void = () => {};
  const decided = new Promise<void>((resolve) => (allDecided = resolve));
  const check = () => gates.reduce((sum, gate) => sum + gate.started(), 0) + refused === 40 && allDecided();
  gates.forEach((gate) => gate.onStart(check));
  const answers = Array.from({ length: 40 }, (_, i) =>
    (servers[i % servers.length] as TestServer).call('POST', `${API}${request.path}`, { key, body: request.body }).then((answer) => {
      if (answer.status !== 200) refused += 1;
      check();
      return answer;
    }),
  );
  await decided;
  gates.forEach((gate) => gate.open());
  const settled = await Promise.all(answers);

  const served = settled.filter((answer) => answer.status === 200);
  expect(settled.filter((answer) => answer.status !== 200).map((answer) => answer.status)).toEqual(Array(40 - served.length).fill(402));
  expect(served.length).toBeGreaterThan(0);
  expect(served.length).toBeLessThanOrEqual(affords);
  // Never below cost: each answer was charged what its own tokens cost.
  for (const answer of served) expect(toMicro(answer.body.usage.cost)).toBe(costOf(request.tokensOf(answer.body)));
  const after = (await first.call('GET', appPath(appUuid))).body;
  expect(toMicro(after.held_credits)).toBe(0);
  expect(toMicro(after.balance_credits)).toBe(balanceMicro - served.reduce((sum, answer) => sum + toMicro(answer.body.usage.cost), 0));
  expect(await first.server.store.credits.check()).toEqual([]);
  return served.length;
}

/** Chat usage as OpenAI reports it. */
export const chatTokens = (answer: any) => ({ input: answer.usage.prompt_tokens as number, output: answer.usage.completion_tokens as number });
/** Messages usage as Anthropic reports it. */
export const messagesTokens = (answer: any) => ({ input: answer.usage.input_tokens as number, output: answer.usage.output_tokens as number });

/** What `body` is held for at `path`, in credits: read off the 402 of a key that has next to nothing. */
export async function heldFor(server: TestServer, path: string, body: unknown): Promise<number> {
  const answer = await server.call('POST', `${API}${path}`, { key: (await liveKeyOf(server, 0.01)).key, body });
  expect(answer.status).toBe(402);
  const credits = /may cost up to ([\d.]+) credits/.exec(answer.body.error.message as string)?.[1];
  if (credits === undefined) throw new Error(`no hold named in: ${answer.body.error.message}`);
  return Number(credits);
}

/** An OpenAI-type upstream that records each request's JSON body and answers it with `answer`'s JSON. */
export interface RecordingUpstream {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startRecordingUpstream(answer: (path: string, body: Record<string, unknown>) => unknown): Promise<RecordingUpstream> {
  const requests: RecordingUpstream['requests'] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (piece: Buffer) => (text += piece.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      const path = req.url ?? '';
      requests.push({ path, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer(path, body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A completed Responses object as OpenAI writes it: `items` (web searches…), then one message of `text`, and its usage. */
export function completedResponse(model: unknown, text: string, tokens: { input: number; output: number }, items: unknown[] = []) {
  return {
    id: 'resp_up',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model,
    output: [...items, { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: {
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      total_tokens: tokens.input + tokens.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
    error: null,
  };
}

/** A chat completion as OpenAI writes it: one choice of `text`, and its usage. */
export function chatCompletion(model: unknown, text: string, tokens: { input: number; output: number }, finishReason: 'stop' | 'length') {
  return {
    id: 'chatcmpl-up',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
    usage: { prompt_tokens: tokens.input, completion_tokens: tokens.output, total_tokens: tokens.input + tokens.output },
  };
}
