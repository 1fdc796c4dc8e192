import { describe, expect, it } from 'vitest';
import { addDeveloper, API, bearer, expectApiError, useTestServer } from '../helpers/api.js';
import { setBreaker } from '../helpers/breakers.js';
import { liveUsersApp } from '../helpers/live-users.js';
import { pricedProvider } from '../helpers/providers.js';

/**
 * `GET /providers/status`: each served target and its circuit breaker, for admin keys. Nothing
 * counted from requests: those figures mix every developer's traffic on the instance, and a
 * developer sees only their own (the operator reads them on /metrics).
 */
const t = useTestServer({ providers: [pricedProvider()] }, { scope: 'file' });
const STATUS = `${API}/providers/status`;
const SERVED = ['local/echo', 'paid/echo', 'paid/embed'];

describe('GET /providers/status', () => {
  it("lists every served target with its breaker as the breaker store has it, in the configured order", async () => {
    const before = await t.call('GET', STATUS);
    expect(before.status).toBe(200);
    expect(before.body.at).toBe('2026-03-01T12:00:00.000Z');
    expect(before.body.data.filter((row: { target: string }) => SERVED.includes(row.target))).toEqual(SERVED.map((target) => ({ target, breaker: 'closed' })));

    await setBreaker(t, 'paid/echo', 'half_open');
    await setBreaker(t, 'paid/embed', 'open');
    const after = (await t.call('GET', STATUS)).body.data;
    expect(after.find((row: { target: string }) => row.target === 'paid/echo')).toEqual({ target: 'paid/echo', breaker: 'half_open' });
    expect(after.find((row: { target: string }) => row.target === 'paid/embed')).toEqual({ target: 'paid/embed', breaker: 'open' });
    await setBreaker(t, 'paid/echo', 'closed');
    await setBreaker(t, 'paid/embed', 'closed');
  });

  it("another developer's admin key learns nothing of the owner's traffic: the same answer before and after it", async () => {
    const other = await addDeveloper(t);
    const before = await t.call('GET', STATUS, { key: other.key });
    expect(before.status).toBe(200);

    // The owner's traffic: requests that reach upstream targets, failed attempts as the routes report them.
    const chat = await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(200);
    t.server.observer.attemptEnded({ route: 'smart', provider: 'paid', model: 'embed', outcome: 'server_error', latencyMs: 300, retry: false, fallback: false });
    t.clock.advance(1_000);

    const after = await t.call('GET', STATUS, { key: other.key });
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    for (const row of after.body.data) expect(Object.keys(row).sort()).toEqual(['breaker', 'target']);
    expect(Object.keys(after.body).sort()).toEqual(['at', 'data', 'object']);
  });

  it('is for admin keys: inference, read_only and test keys and an end user’s token get a 403, no credentials a 401', async () => {
    for (const role of ['inference', 'read_only'] as const) {
      const key = (await t.server.services.apiKeys.create(t.appUuid, { name: role, role, is_test: false })).secret;
      expectApiError(await t.call('GET', STATUS, { key }), 403, { code: 'insufficient_role' });
    }
    expectApiError(await t.call('GET', STATUS, { key: t.testKey }), 403);
    const { token } = await (await liveUsersApp(t)).user();
    expectApiError(await t.call('GET', STATUS, bearer(token)), 403);
    expectApiError(await t.call('GET', STATUS, { key: null }), 401);
  });
});
