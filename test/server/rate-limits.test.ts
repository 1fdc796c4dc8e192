import { describe, expect, it } from 'vitest';
import { API, appPath, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

const APPS = `${API}/developer/apps`;

describe('rate limits: requests per minute', () => {
  const t = useTestServer({ rateLimitRequestsPerMinute: 3 });

  it('says where the caller stands on every response', async () => {
    const response = await t.call('GET', APPS);
    expectStatus(response, 200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('3');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('answers 429 with retry-after past the limit, and lets the caller in again in the next minute', async () => {
    for (let i = 0; i < 3; i++) expectStatus(await t.call('GET', APPS), 200);
    const limited = await t.call('GET', APPS);
    expectApiError(limited, 429, { type: 'rate_limit_exceeded' });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    t.clock.advance(retryAfter * 1000);
    expectStatus(await t.call('GET', APPS), 200);
  });

  it('counts each key on its own', async () => {
    for (let i = 0; i < 3; i++) await t.call('GET', APPS);
    expectApiError(await t.call('GET', APPS), 429);
    expectStatus(await t.call('GET', `${API}/credits/balance`, { key: t.testKey }), 200);
  });

  it('a subscription raises the limits (pro: five times), from the moment it starts to its end', async () => {
    expect((await t.call('GET', APPS)).headers.get('x-ratelimit-limit')).toBe('3');
    const session = await t.call('POST', `${API}/subscriptions/checkout-session`, { body: { tier: 'pro', interval: 'month' } });
    await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    t.clock.advance(60_000);
    const raised = await t.call('GET', APPS);
    expect(raised.headers.get('x-ratelimit-limit')).toBe('15');
    expect(raised.headers.get('x-ratelimit-limit-tokens')).toMatch(/^\d+$/);
    for (let i = 0; i < 14; i++) expectStatus(await t.call('GET', APPS), 200);
    expectApiError(await t.call('GET', APPS), 429);
    t.clock.advance(60_000);
    expectStatus(await t.call('POST', `${API}/subscriptions/cancel`), 200);
    t.clock.advance(32 * 24 * 60 * 60 * 1000);
    await t.server.services.billingClock.idle();
    expect((await t.call('GET', APPS)).headers.get('x-ratelimit-limit')).toBe('3');
  });

  /** A second admin key: its calls count apart from the owner key's. */
  const secondAdminKey = async () =>
    (await t.server.services.apiKeys.create(t.appUuid, { name: 'second', is_test: false, role: 'admin' })).secret;

  it('an app can set its own limit, and null goes back to the server default', async () => {
    const key = await secondAdminKey();
    expectStatus(await t.call('PATCH', appPath(t.appUuid), { body: { rate_limit_rpm: 10 }, key }), 200);
    for (let i = 0; i < 5; i++) expectStatus(await t.call('GET', APPS), 200);
    const back = await t.call('PATCH', appPath(t.appUuid), { body: { rate_limit_rpm: null }, key });
    expect(back.body.rate_limit_rpm).toBeNull();
    t.clock.advance(60_000);
    expect((await t.call('GET', APPS)).headers.get('x-ratelimit-limit')).toBe('3');
  });

  it('refuses a limit that is not a positive whole number', async () => {
    const key = await secondAdminKey();
    expectApiError(await t.call('PATCH', appPath(t.appUuid), { body: { rate_limit_rpm: 0 }, key }), 400, { param: 'rate_limit_rpm' });
  });
});

describe('rate limits: tokens per minute', () => {
  const t = useTestServer({ rateLimitTokensPerMinute: 30 });
  const chat = () =>
    t.call('POST', `${API}/chat/completions`, { body: { model: 'local/echo', messages: [{ role: 'user', content: 'count my tokens, please' }] } });

  it('answers 429 once the tokens of this minute reach the limit, and shows the tokens left', async () => {
    const first = await chat();
    expectStatus(first, 200);
    let answer = first;
    while (answer.status === 200) answer = await chat();
    expectApiError(answer, 429, { type: 'rate_limit_exceeded' });
    expect(answer.body.error.message).toContain('30 tokens per minute');
    const headers = (await t.call('GET', APPS)).headers;
    expect(headers.get('x-ratelimit-limit-tokens')).toBe('30');
    expect(headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    t.clock.advance(60_000);
    expectStatus(await chat(), 200);
  });
});
