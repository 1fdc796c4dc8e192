import { describe, expect, it, vi } from 'vitest';
import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import type { UpstreamProvider } from '../../server/providers/registry.js';
import type { ModelEntry, ProviderAdapter } from '../../server/providers/types.js';
import { API, expectStatus } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A latency route end to end, through the server: two upstreams that take 150 ms and 10 ms of
 * the server's clock to answer (each moves the test's clock as it answers). The route measures
 * both, then leads with the quick one on most requests (one in ten explores the other).
 */
let server: TestServer | undefined;
const advance = (ms: number) => server?.clock.advance(ms);

function clocked(id: string, takesMs: number): UpstreamProvider {
  const local = createLocalAdapter();
  const adapter: ProviderAdapter = {
    ...local,
    async chat(call) {
      advance(takesMs);
      return local.chat(call);
    },
  };
  const model: ModelEntry = { id: `${id}/m`, provider: id, model: 'm', inputPrice: 1, outputPrice: 2, contextLength: 8192, defaultMaxOutputTokens: 50, capabilities: ['chat'] };
  return { id, adapter, models: [model] };
}

describe('a latency route', () => {
  it('measures each target by the clock, then sends most requests to the quickest', async () => {
    // The one-in-ten exploration draws from Math.random: a seeded sequence makes the count the
    // same on every run (11 explorations in 40 happened once by chance on CI).
    let seed = 20261125;
    const random = vi.spyOn(Math, 'random').mockImplementation(() => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    });
    server = await startTestServer({
      providers: [clocked('slow', 150), clocked('quick', 10)],
      routes: [{ id: 'route/quickest', strategy: 'latency', targets: [{ model: 'slow/m', weight: 1 }, { model: 'quick/m', weight: 1 }] }],
    });
    const t = server;
    try {
      const chat = async () => {
        const answer = await t.call('POST', `${API}/chat/completions`, { body: { model: 'route/quickest', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } });
        expectStatus(answer, 200);
        return answer.body.model as string;
      };
      expect(await chat()).toBe('slow/m');
      expect(await chat()).toBe('quick/m');
      const served: Record<string, number> = {};
      for (let i = 0; i < 40; i++) {
        const model = await chat();
        served[model] = (served[model] ?? 0) + 1;
      }
      // One in ten explores the other (expected 4); the quickest takes the rest.
      expect(served['quick/m']).toBeGreaterThanOrEqual(30);
    } finally {
      random.mockRestore();
      await t.close();
      server = undefined;
    }
  });
});
