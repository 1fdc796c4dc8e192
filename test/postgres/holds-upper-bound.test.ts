import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { burstOverBalance, burstProvidersFile, chatTokens, messagesTokens } from '../helpers/holds-burst.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { joinTestServer, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Holds are true upper bounds across two instances over one PostgreSQL database (issue 23): a
 * burst spread over both is served at most as often as the balance pays for, never below cost.
 */
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let gates: { openai: GatedProxy; anthropic: GatedProxy };
let a: TestServer;
let b: TestServer;
let dropSchema: () => Promise<void>;

describe.skipIf(!testDatabaseUrl)('two instances: holds are upper bounds', () => {
  beforeAll(async () => {
    openai = await startFakeOpenAI();
    anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
    gates = { openai: await startGatedProxy(openai.url), anthropic: await startGatedProxy(anthropic.url) };
    const options = {
      providersFile: burstProvidersFile({ openai: gates.openai.url, anthropic: gates.anthropic.url }),
      env: { FAKE_OPENAI_KEY: openai.apiKey, FAKE_ANTHROPIC_KEY: 'anthropic-test-key' },
    };
    const schema = await freshSchema();
    dropSchema = schema.drop;
    a = await startTestServer({ ...options, dbPath: schema.url });
    b = await joinTestServer(a, options);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema?.();
    await gates?.openai.close();
    await gates?.anthropic.close();
    await openai?.close();
    await anthropic?.close();
  });

  const DENSE = '東京都の天気は晴れ時々くもり、最高気温は二十三度。🌤️🌧️🔥 3.14159265358979323846 '.repeat(3);

  it('OpenAI by its tokenizer: 40 at once over a balance that pays for 6, at most 6 served', async () => {
    const body = { model: 'oai/gpt-4o-mini', max_tokens: 12, messages: [{ role: 'user', content: DENSE, name: 'alice' }] };
    const served = await burstOverBalance([a, b], [gates.openai], { path: '/chat/completions', body, tokensOf: chatTokens }, 6);
    expect(served).toBe(6);
  });

  it('Anthropic relayed, bound by UTF-8 bytes: 40 at once over a balance that pays for 10, at most 10 served', async () => {
    const prose = 'The weather in Tokyo is sunny with some clouds, and the highest temperature is twenty-three degrees. '.repeat(2);
    const body = { model: 'ant/claude-fake', max_tokens: 12, messages: [{ role: 'user', content: prose }] };
    await burstOverBalance([a, b], [gates.anthropic], { path: '/messages', body, tokensOf: messagesTokens }, 10);
  });
});
