import { describe, expect, it } from 'vitest';
import type { InferenceObserver } from '../../server/metrics/inference-observer.js';
import { everyObserver } from '../../server/metrics/every-observer.js';
import { API } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer } from '../helpers/server.js';

/**
 * An embedder's observer written as async functions (a collector that awaits its write) fits the
 * interface — a method typed to return void takes one that returns a promise — and its failure is
 * a rejected promise, not a throw. It must be isolated as a throw is: logged once by name, never
 * an unhandled rejection (Node ends the process on one by default).
 */
const rejecting = () => {
  const observer = {
    calls: 0,
    async usageRecorded() {
      observer.calls += 1;
      throw new Error('collector unreachable');
    },
    async attemptEnded() {
      observer.calls += 1;
      throw new Error('collector unreachable');
    },
    async breakerChanged() {
      throw new Error('collector unreachable');
    },
    async holdsInFlight() {
      throw new Error('collector unreachable');
    },
  } satisfies InferenceObserver & { calls: number };
  return observer;
};

/** Unhandled rejections while `run` runs and a turn of the event loop after it. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await run();
    // Node reports an unhandled rejection once the microtasks after it have run.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

describe('an observer whose methods return promises', () => {
  it('a rejection is logged once with its name, like a throw, and is never unhandled', async () => {
    const logged: string[] = [];
    const unhandled = await unhandledDuring(async () => {
      const all = everyObserver({ collector: rejecting() }, (line) => logged.push(line));
      for (let i = 0; i < 3; i++) {
        all.attemptEnded({ route: null, provider: 'p', model: 'm', outcome: 'ok', latencyMs: 1, retry: false, fallback: false });
        all.holdsInFlight(1);
      }
      await Promise.resolve();
    });
    expect(unhandled).toEqual([]);
    expect(logged).toEqual(['observer collector threw in attemptEnded: Error: collector unreachable (its later failures are not logged)']);
  });

  it('a server with such an observer answers, and nothing goes unhandled', async () => {
    const logged: string[] = [];
    const collector = rejecting();
    const t = await startTestServer({ providers: [pricedProvider()], observers: { collector }, log: (line) => logged.push(line) });
    try {
      const unhandled = await unhandledDuring(async () => {
        const answer = await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } });
        expect(answer.status).toBe(200);
      });
      expect(collector.calls).toBeGreaterThanOrEqual(2);
      expect(unhandled).toEqual([]);
      expect(logged.filter((line) => line.startsWith('observer collector'))).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
