import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI } from '../fixtures/fake-openai.js';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.js';

export const FAKE_ANTHROPIC_KEY = 'anthropic-test-key';

/**
 * The fake OpenAI and Anthropic upstreams, and a providers file naming them as `providers`
 * describes (given their URLs); `env` holds the keys the file's `api_key_env` names
 * (FAKE_OPENAI_KEY, FAKE_ANTHROPIC_KEY).
 */
export async function startFakeUpstreams(providers: (urls: { openai: string; anthropic: string }) => unknown[]) {
  const openai = await startFakeOpenAI();
  const anthropic = await startFakeAnthropic({ apiKey: FAKE_ANTHROPIC_KEY });
  const file = join(mkdtempSync(join(tmpdir(), 'svc-providers-')), 'providers.json');
  writeFileSync(file, JSON.stringify({ providers: providers({ openai: openai.url, anthropic: anthropic.url }) }));
  return {
    openai,
    anthropic,
    file,
    env: { FAKE_OPENAI_KEY: openai.apiKey, FAKE_ANTHROPIC_KEY },
    close: async () => {
      await openai.close();
      await anthropic.close();
    },
  };
}

/**
 * A test server in front of the fake upstreams for a whole test file, `providers` as
 * startFakeUpstreams takes them: started before the file's tests, closed after them.
 */
export function useServerOnFakeUpstreams(providers: Parameters<typeof startFakeUpstreams>[0], options: Parameters<typeof startTestServer>[0] = {}) {
  let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>> | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    upstreams = await startFakeUpstreams(providers);
    server = await startTestServer({ ...options, providersFile: upstreams.file, env: { ...options.env, ...upstreams.env } });
  });
  afterAll(async () => {
    await server?.close();
    await upstreams?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the server on fake upstreams exists only inside the file’s tests');
    return value;
  };
  return {
    get t() {
      return started(server);
    },
    get upstreams() {
      return started(upstreams);
    },
  };
}
