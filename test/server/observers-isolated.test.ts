import { describe, expect, it } from 'vitest';
import type { InferenceObserver } from '../../server/metrics/inference-observer.js';
import { everyObserver } from '../../server/metrics/every-observer.js';
import { API } from '../helpers/api.js';
import { parseScrape } from '../helpers/prometheus.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer } from '../helpers/server.js';

/**
 * Whoever watches inference is told everything, each on its own: one that throws neither stops
 * the others nor fails the request, and is logged once (its first failure), not at every request.
 */
const throwing = (): InferenceObserver & { calls: number } => {
  const observer = {
    calls: 0,
    usageRecorded() {
      observer.calls += 1;
      throw new Error('collector exploded');
    },
    attemptEnded() {
      observer.calls += 1;
      throw new Error('collector exploded');
    },
    breakerChanged() {
      throw new Error('collector exploded');
    },
    holdsInFlight() {
      throw new TypeError('not a number');
    },
  };
  return observer;
};

describe('every observer, isolated', () => {
  it('one that throws: the others are still told, in order, and its failure is logged once', () => {
    const seen: string[] = [];
    const logged: string[] = [];
    const recorder = (name: string): InferenceObserver => ({
      usageRecorded: () => void seen.push(`${name} usage`),
      attemptEnded: () => void seen.push(`${name} attempt`),
      breakerChanged: () => void seen.push(`${name} breaker`),
      holdsInFlight: () => void seen.push(`${name} holds`),
    });
    const all = everyObserver({ first: recorder('first'), broken: throwing(), last: recorder('last') }, (line) => logged.push(line));
    for (let i = 0; i < 3; i++) {
      all.attemptEnded({ route: null, provider: 'p', model: 'm', outcome: 'ok', latencyMs: 1, retry: false, fallback: false });
      all.holdsInFlight(1);
      all.breakerChanged('p/m', 'open');
    }
    expect(seen.filter((each) => each.startsWith('last'))).toHaveLength(9);
    expect(seen.slice(0, 2)).toEqual(['first attempt', 'last attempt']);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^observer broken threw in attemptEnded: Error: collector exploded \(its later failures are not logged\)$/);
  });

  it('a server whose extra observer throws still answers, and its metrics still count the request', async () => {
    const logged: string[] = [];
    const broken = throwing();
    const t = await startTestServer({ providers: [pricedProvider()], observers: { broken }, log: (line) => logged.push(line) });
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } });
        expect(answer.status).toBe(200);
      }
      expect(broken.calls).toBeGreaterThanOrEqual(4);
      const metrics = await parseScrape(await (await fetch(`${t.url}/metrics`)).text());
      expect(metrics.total('svc_requests_total', { status: 'ok' })).toBe(2);
      expect(logged.filter((line) => line.startsWith('observer broken'))).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
