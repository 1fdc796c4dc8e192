import { describe, expect, it } from 'vitest';
import { API, appPath, bearer, createOwnerApp, expectStatus, sandboxUser, useTestServer } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';

/**
 * Live and test usage never meet (#21): every usage report shows the caller's mode only — a test
 * key (or a sandbox user) sees the test requests, a live key the live ones. One app makes both
 * kinds; each report is read from both sides.
 */
const t = useTestServer({ providers: [pricedProvider()] });

/** A chat request with `auth`: `{ key }`, or a user's `bearer(token)`. */
const chat = (auth: { key: string } | ReturnType<typeof bearer>, model: string) =>
  t.call('POST', `${API}/chat/completions`, {
    ...auth,
    body: { model, max_tokens: 5, messages: [{ role: 'user', content: 'hello there' }] },
  });

/**
 * A new app with, live: 2 paid and 2 free requests by its key; test: 2 free requests by its key
 * and 1 by a user signed in through the sandbox (test mode). Keys to read it in both modes.
 */
async function appOfBothModes() {
  const app = await createOwnerApp(t, { balanceCredits: 100 });
  const key = async (is_test: boolean, role: 'inference' | 'read_only') =>
    (await t.server.services.apiKeys.create(app.appUuid, { name: `${is_test ? 'test' : 'live'} ${role}`, is_test, role })).secret;
  const keys = { live: await key(false, 'inference'), test: await key(true, 'inference'), liveReader: await key(false, 'read_only'), testReader: await key(true, 'read_only') };
  for (const model of ['paid/echo', 'paid/echo', 'local/echo', 'local/echo']) expectStatus(await chat({ key: keys.live }, model), 200);
  for (let i = 0; i < 2; i++) expectStatus(await chat({ key: keys.test }, 'local/echo'), 200);
  const user = await sandboxUser(t, app.appUuid);
  expectStatus(await chat(user.as, 'local/echo'), 200);
  // Reports end now, inclusive; move on a little so that every request is well inside them.
  t.clock.advance(60_000);
  return { app, keys, user };
}

const requestsOf = (rows: { model: string; requests: number }[]) => Object.fromEntries(rows.map((row) => [row.model, row.requests]));

describe('usage reports show the caller’s mode only', () => {
  it('usage models: a live key sees the live requests, a test key the test ones, a sandbox user its own', async () => {
    const { keys, user } = await appOfBothModes();
    const live = await t.call('GET', `${API}/usage/models`, { key: keys.live });
    expectStatus(live, 200);
    expect(requestsOf(live.body.data)).toEqual({ 'paid/echo': 2, 'local/echo': 2 });
    expect(live.body.data.find((row: { model: string }) => row.model === 'paid/echo').credits).toBeGreaterThan(0);

    const test = await t.call('GET', `${API}/usage/models`, { key: keys.test });
    expectStatus(test, 200);
    expect(test.body.data).toEqual([expect.objectContaining({ model: 'local/echo', requests: 3, credits: 0 })]);

    const own = await t.call('GET', `${API}/usage/models`, user.as);
    expect(own.body.data).toEqual([expect.objectContaining({ model: 'local/echo', requests: 1 })]);
  });

  it('app usage: buckets, totals and models of the reader’s mode, from both sides', async () => {
    const { app, keys } = await appOfBothModes();
    for (const granularity of ['day', 'hour']) {
      const live = await t.call('GET', `${appPath(app.appUuid, 'usage')}?granularity=${granularity}`, { key: keys.liveReader });
      expectStatus(live, 200);
      expect(live.body.totals).toMatchObject({ requests: 4, refused_requests: 0 });
      expect(live.body.totals.credits).toBeGreaterThan(0);
      expect(live.body.data.reduce((sum: number, bucket: { requests: number }) => sum + bucket.requests, 0)).toBe(4);
      expect(requestsOf(live.body.models)).toEqual({ 'paid/echo': 2, 'local/echo': 2 });

      const test = await t.call('GET', `${appPath(app.appUuid, 'usage')}?granularity=${granularity}`, { key: keys.testReader });
      expectStatus(test, 200);
      expect(test.body.totals).toMatchObject({ requests: 3, refused_requests: 0, credits: 0 });
      expect(test.body.data.reduce((sum: number, bucket: { requests: number }) => sum + bucket.requests, 0)).toBe(3);
      expect(requestsOf(test.body.models)).toEqual({ 'local/echo': 3 });
    }
  });

  it('app usage per user: the live reader sees the live key’s requests only, the test reader the test key’s and the sandbox user’s', async () => {
    const { app, keys, user } = await appOfBothModes();
    const live = await t.call('GET', appPath(app.appUuid, 'usage', 'users'), { key: keys.liveReader });
    expectStatus(live, 200);
    expect(live.body).toMatchObject({ total: 1, data: [{ address: null, requests: 4 }] });

    const test = await t.call('GET', appPath(app.appUuid, 'usage', 'users'), { key: keys.testReader });
    expectStatus(test, 200);
    expect(test.body.total).toBe(2);
    expect(test.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: null, requests: 2, credits: 0 }),
        expect.objectContaining({ address: user.address, requests: 1, credits: 0 }),
      ]),
    );
  });
});
