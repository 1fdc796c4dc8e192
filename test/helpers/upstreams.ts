import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI } from '../fixtures/fake-openai.js';

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
