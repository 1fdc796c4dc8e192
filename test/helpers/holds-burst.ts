import { mkdtempSync, writeFileSync } from 'node:fs';
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

async function liveKeyOf(server: TestServer, balanceCredits: number) {
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
