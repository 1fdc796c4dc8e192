import { describe, expect, it } from 'vitest';
import { API, expectApiError, useTestServer } from '../helpers/api.js';
import { setBreaker } from '../helpers/breakers.js';
import { pricedProvider } from '../helpers/providers.js';

/**
 * `GET /providers/status`: each upstream target's breaker, attempts, error rate and median
 * latency as this instance saw them (what the routes report to the observer), for admin keys only.
 */
const t = useTestServer({ providers: [pricedProvider()] }, { scope: 'file' });
const STATUS = `${API}/providers/status`;

describe('GET /providers/status', () => {
  it('lists nothing before any attempt; then each target with its figures over the recent attempts', async () => {
    const empty = await t.call('GET', STATUS);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ object: 'list', data: [], window: 200, at: '2026-03-01T12:00:00.000Z' });

    const attempt = (outcome: string, latencyMs: number) =>
      t.server.observer.attemptEnded({ route: 'smart', provider: 'paid', model: 'echo', outcome, latencyMs, retry: false, fallback: false });
    attempt('ok', 100);
    attempt('server_error', 300);
    attempt('ok', 200);
    await setBreaker(t, 'paid/echo', 'half_open');
    t.clock.advance(1_000);
    t.server.observer.attemptEnded({ route: null, provider: 'paid', model: 'embed', outcome: 'timeout', latencyMs: 30_000, retry: false, fallback: true });

    const { status, body } = await t.call('GET', STATUS);
    expect(status).toBe(200);
    expect(body.data).toEqual([
      { target: 'paid/echo', breaker: 'half_open', requests: 3, errors: 1, error_rate: 1 / 3, p50_latency_ms: 200, last_outcome: 'ok', last_at: '2026-03-01T12:00:00.000Z' },
      { target: 'paid/embed', breaker: 'closed', requests: 1, errors: 1, error_rate: 1, p50_latency_ms: 30_000, last_outcome: 'timeout', last_at: '2026-03-01T12:00:01.000Z' },
    ]);
  });

  it('the error rate and the median cover the last 200 attempts; the counts cover them all', async () => {
    for (let i = 0; i < 250; i++) {
      t.server.observer.attemptEnded({ route: null, provider: 'local', model: 'echo', outcome: i < 50 ? 'overloaded' : 'ok', latencyMs: i < 50 ? 5_000 : 10, retry: false, fallback: false });
    }
    const local = (await t.call('GET', STATUS)).body.data.find((row: { target: string }) => row.target === 'local/echo');
    expect(local).toMatchObject({ requests: 250, errors: 50, error_rate: 0, p50_latency_ms: 10 });
  });

  it('is for admin keys: inference and read_only keys get a 403 naming the role, no key a 401', async () => {
    for (const role of ['inference', 'read_only'] as const) {
      const key = (await t.server.services.apiKeys.create(t.appUuid, { name: role, role, is_test: false })).secret;
      expectApiError(await t.call('GET', STATUS, { key }), 403, { code: 'insufficient_role' });
    }
    expectApiError(await t.call('GET', STATUS, { key: t.testKey }), 403);
    expectApiError(await t.call('GET', STATUS, { key: null }), 401);
  });
});
