import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { burstOverBalance, burstProvidersFile, chatTokens, messagesTokens } from '../helpers/holds-burst.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Holds are true upper bounds (issue 23): whatever a request can cost is held before the
 * upstream call, so a burst over a balance is served at most as often as the balance pays for,
 * never below cost — with upstreams that count input as OpenAI (its tokenizer, framing included)
 * and Anthropic do, on text an estimate of four characters a token gets wrong.
 */
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let gates: { openai: GatedProxy; anthropic: GatedProxy };
let t: TestServer;

beforeAll(async () => {
  openai = await startFakeOpenAI();
  anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
  gates = { openai: await startGatedProxy(openai.url), anthropic: await startGatedProxy(anthropic.url) };
  t = await startTestServer({
    providersFile: burstProvidersFile({ openai: gates.openai.url, anthropic: gates.anthropic.url }),
    env: { FAKE_OPENAI_KEY: openai.apiKey, FAKE_ANTHROPIC_KEY: 'anthropic-test-key' },
  });
});
afterAll(async () => {
  await t?.close();
  await gates?.openai.close();
  await gates?.anthropic.close();
  await openai?.close();
  await anthropic?.close();
});

// Dense text: Japanese, emoji and long numbers are more than a token per four characters.
const DENSE = '東京都の天気は晴れ時々くもり、最高気温は二十三度。🌤️🌧️🔥 3.14159265358979323846 '.repeat(3);
const chat = (model: string) => ({
  model,
  max_tokens: 12,
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: DENSE, name: 'alice' },
  ],
});

describe('40 requests at once over a balance that pays for 6', () => {
  it('OpenAI, counted by its tokenizer: at most 6 served, each charged its whole cost', async () => {
    const served = await burstOverBalance([t], [gates.openai], { path: '/chat/completions', body: chat('oai/gpt-4o-mini'), tokensOf: chatTokens }, 6);
    // The bound is the tokenizer's count plus max_tokens: near the truth, so the balance is used.
    expect(served).toBe(6);
  });

  it('an older OpenAI model (cl100k_base): at most 6 served', async () => {
    await burstOverBalance([t], [gates.openai], { path: '/chat/completions', body: chat('oai/gpt-4-turbo'), tokensOf: chatTokens }, 6);
  });

  it('an unknown model on an OpenAI-compatible host, bound by UTF-8 bytes: at most 6 served', async () => {
    await burstOverBalance([t], [gates.openai], { path: '/chat/completions', body: chat('oai/llama-fake'), tokensOf: chatTokens }, 6);
  });

});

// Anthropic's tokenizer is not public: the hold counts UTF-8 bytes, about four times the fake's
// count of English, so a balance that pays for 10 admits fewer (the price of exactness).
const PROSE = 'The weather in Tokyo is sunny with some clouds, and the highest temperature is twenty-three degrees. '.repeat(2);

describe('40 requests at once over a balance that pays for 10, on Anthropic', () => {
  it('relayed (Messages): at most 10 served, each charged its whole cost', async () => {
    const body = { model: 'ant/claude-fake', max_tokens: 12, system: 'Answer briefly.', messages: [{ role: 'user', content: PROSE }] };
    await burstOverBalance([t], [gates.anthropic], { path: '/messages', body, tokensOf: messagesTokens }, 10);
  });

  it('translated (chat completions): at most 10 served', async () => {
    const body = { ...chat('ant/claude-fake'), messages: [{ role: 'user', content: PROSE }] };
    await burstOverBalance([t], [gates.anthropic], { path: '/chat/completions', body, tokensOf: chatTokens }, 10);
  });
});

describe('count_tokens on a translated route', () => {
  it('answers the bound credits are held for, not below what the upstream counts', async () => {
    const body = { model: 'oai/gpt-4o-mini', messages: [{ role: 'user', content: DENSE }] };
    const counted = await t.call('POST', '/api/v1/messages/count_tokens', { body });
    expect(counted.status).toBe(200);
    const answer = await t.call('POST', '/api/v1/messages', { body: { ...body, max_tokens: 12 } });
    expect(answer.status).toBe(200);
    expect(counted.body.input_tokens).toBeGreaterThanOrEqual(answer.body.usage.input_tokens);
  });
});
