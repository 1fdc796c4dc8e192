import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { API, expectChargedForProduced, appPath, createOwnerApp, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { startTestServer } from '../helpers/server.js';
import { pricedProvider, stallingAdapter } from '../helpers/providers.js';

/** paid/echo: 0.1 credit an input token, 0.2 an output token (test/helpers/providers.ts). */
const MICRO_IN = 100_000;
const MICRO_OUT = 200_000;

const t = useTestServer({ providers: [pricedProvider()] });

const chat = (content: string, extra: Record<string, unknown> = {}, key?: string) =>
  t.call('POST', `${API}/chat/completions`, {
    body: { model: 'paid/echo', messages: [{ role: 'user', content }], max_tokens: 20, ...extra },
    ...(key ? { key } : {}),
  });

const balance = async (key?: string) => (await t.call('GET', `${API}/credits/balance`, key ? { key } : {})).body;

describe('metering', () => {
  it('starts the default app at 100 credits with nothing held', async () => {
    expect(await balance()).toEqual({ credits: 100, held_credits: 0, livemode: true });
  });

  it('charges exactly the tokens the answer used', async () => {
    const answer = await chat('count my tokens please');
    expectStatus(answer, 200);
    const { prompt_tokens: input, completion_tokens: output } = answer.body.usage;
    const cost = input * MICRO_IN + output * MICRO_OUT;
    expect(await balance()).toEqual({ credits: (100_000_000 - cost) / 1e6, held_credits: 0, livemode: true });
  });

  it('refuses with 402 when the most a request can cost is more than the balance, saying what it affords', async () => {
    const answer = await chat('hello', { max_tokens: 10_000 });
    expectApiError(answer, 402, { type: 'insufficient_credits' });
    expect(answer.body.error.message).toMatch(/enough for \d+ output tokens/);
    expect(await balance()).toEqual({ credits: 100, held_credits: 0, livemode: true });
  });

  it('never overdraws under concurrency: of 40 requests against room for about ten, the rest get 402', async () => {
    // Each request holds at most (6 input + 4 framing) × 0.1 + 50 × 0.2 = 11 credits.
    const app = await createOwnerApp(t, { balanceCredits: 110 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'k', is_test: false })).secret;
    const answers = await Promise.all(Array.from({ length: 40 }, () => chat('concurrent calls', { max_tokens: 50 }, key)));
    const ok = answers.filter((a) => a.status === 200);
    expect(answers.every((a) => a.status === 200 || a.status === 402)).toBe(true);
    expect(ok.length).toBeGreaterThanOrEqual(10);
    const charged = ok.reduce((sum, a) => sum + a.body.usage.prompt_tokens * MICRO_IN + a.body.usage.completion_tokens * MICRO_OUT, 0);
    const after = await balance(key);
    expect(after.held_credits).toBe(0);
    expect(after.credits).toBeGreaterThanOrEqual(0);
    expect(Math.round(after.credits * 1e6)).toBe(110_000_000 - charged);
    // Usage rows add up to the same amount.
    const usage = await t.call('GET', `${API}/usage/models`, { key });
    // Refused requests leave usage rows too (how many depends on how the requests interleave).
    expect(usage.body.data).toEqual([expect.objectContaining({ model: 'paid/echo', requests: 40, refused_requests: 40 - ok.length })]);
    expect(Math.round(usage.body.data[0].credits * 1e6)).toBe(charged);
  });

  it('test keys reach only the local provider and are never charged', async () => {
    expectApiError(await chat('sandbox', {}, t.testKey), 403, { code: 'test_key_not_allowed' });
    const local = await t.call('POST', `${API}/chat/completions`, {
      key: t.testKey,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'sandbox' }] },
    });
    expectStatus(local, 200);
    expect(await balance()).toEqual({ credits: 100, held_credits: 0, livemode: true });
  });
});

describe('a client that goes away mid-stream', () => {
  it('aborts the upstream call, releases the hold and is charged only for what was produced', async () => {
    const adapter = stallingAdapter(['one ', 'two ', 'three ']);
    const dbPath = join(mkdtempSync(join(tmpdir(), 'svc-closed-')), 'server.db');
    const server = await startTestServer({ providers: [pricedProvider(adapter)], dbPath });
    try {
      const aborter = new AbortController();
      const response = await fetch(`${server.url}${API}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.liveKey },
        body: JSON.stringify({ model: 'paid/echo', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'go' }] }),
        signal: aborter.signal,
      });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('three')) text += new TextDecoder().decode((await reader.read()).value);
      aborter.abort();
      await adapter.aborted;
      await expectChargedForProduced(server, { model: 'paid/echo', output_tokens: 4 });
      // Recorded as the client's doing, not the upstream's.
      await server.close();
      const db = new Database(dbPath, { readonly: true });
      expect(db.prepare('SELECT status, error_code FROM usage_events').all()).toEqual([{ status: 'canceled', error_code: 'client_closed' }]);
      db.close();
    } finally {
      await server.close();
    }
  });
});

describe('usage reports', () => {
  it('usage by model: period aliases and durations, start/end together and first', async () => {
    await chat('a report');
    const byDefault = await t.call('GET', `${API}/usage/models`);
    expect(byDefault.body.data).toEqual([expect.objectContaining({ model: 'paid/echo', requests: 1 })]);
    expect(Date.parse(byDefault.body.end) - Date.parse(byDefault.body.start)).toBe(30 * 86_400_000);
    const hour = await t.call('GET', `${API}/usage/models?period=1h`);
    expect(Date.parse(hour.body.end) - Date.parse(hour.body.start)).toBe(3_600_000);
    const explicit = await t.call('GET', `${API}/usage/models?period=10m&start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z`);
    expect(explicit.body).toMatchObject({ start: '2026-01-01T00:00:00.000Z', end: '2026-01-02T00:00:00.000Z', data: [] });
  });

  it.each([
    ['period=400d', 'period'],
    ['period=2w', 'period'],
    ['start=2026-01-01T00:00:00Z', 'end'],
    ['end=2026-01-01T00:00:00Z', 'start'],
    ['start=2026-01-02T00:00:00Z&end=2026-01-01T00:00:00Z', 'end'],
    ['start=2024-01-01T00:00:00Z&end=2026-01-01T00:00:00Z', 'start'],
    ['start=yesterday&end=today', 'start'],
  ])('usage by model refuses %s (400 naming %s)', async (query, param) => {
    expectApiError(await t.call('GET', `${API}/usage/models?${query}`), 400, { param });
  });

  it('app usage: zero-filled day buckets over the last 30 days, and totals', async () => {
    await chat('first');
    t.clock.advance(2 * 86_400_000);
    await chat('second');
    const usage = await t.call('GET', appPath(t.appUuid, 'usage'));
    expectStatus(usage, 200);
    expect(usage.body.granularity).toBe('day');
    expect(usage.body.data.length).toBeGreaterThanOrEqual(30);
    const active = usage.body.data.filter((b: { requests: number }) => b.requests > 0);
    expect(active).toHaveLength(2);
    expect(usage.body.totals.requests).toBe(2);
    expect(usage.body.totals.credits).toBeCloseTo(active[0].credits + active[1].credits, 6);
    // The same window per model, for the whole app.
    expect(usage.body.models).toEqual([expect.objectContaining({ requests: 2, credits: usage.body.totals.credits })]);
  });

  it('app usage by hour, and its bounds', async () => {
    await chat('hourly');
    const hourly = await t.call('GET', `${appPath(t.appUuid, 'usage')}?granularity=hour&start_time=2026-03-01T00:00:00Z&end_time=2026-03-02T00:00:00Z`);
    expect(hourly.body.data).toHaveLength(24);
    expect(hourly.body.data[12]).toMatchObject({ start: '2026-03-01T12:00:00.000Z', requests: 1 });
    expectApiError(await t.call('GET', `${appPath(t.appUuid, 'usage')}?granularity=hour&start_time=2026-01-01T00:00:00Z`), 400, {
      param: 'granularity',
    });
    expectApiError(await t.call('GET', `${appPath(t.appUuid, 'usage')}?granularity=week`), 400, { param: 'granularity' });
  });

  it('app usage per user: API-key requests count under address null', async () => {
    await chat('users');
    const users = await t.call('GET', appPath(t.appUuid, 'usage', 'users'));
    expectStatus(users, 200);
    expect(users.body).toMatchObject({ limit: 50, offset: 0, total: 1, data: [{ address: null, requests: 1 }] });
    expectApiError(await t.call('GET', `${appPath(t.appUuid, 'usage', 'users')}?limit=101`), 400, { param: 'limit' });
  });
});
