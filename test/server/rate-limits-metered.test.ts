import { describe, expect, it } from 'vitest';
import { API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

/**
 * A metered request is counted against its caller's rate limits by its hold, in the same step
 * (one round trip on PostgreSQL): its answer says where the caller stands, a request past the
 * limit is a 429 with its usage row, and one that ends before its hold (a bad body) counts too.
 */
describe('rate limits: a metered request is counted with its hold', () => {
  const t = useTestServer({ rateLimitRequestsPerMinute: 3 });
  const messages = [{ role: 'user', content: 'hello' }];
  const chat = (body: object = { model: 'local/echo', messages }) => t.call('POST', `${API}/chat/completions`, { body });

  it('says where the caller stands, counts a bad request, and past the limit answers 429 with its usage row', async () => {
    const first = await chat();
    expectStatus(first, 200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('x-ratelimit-limit-tokens')).toMatch(/^\d+$/);
    const bad = await chat({ model: 'local/echo' });
    expectApiError(bad, 400);
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('1');
    expectStatus(await chat(), 200);
    const limited = await chat();
    expectApiError(limited, 429, { type: 'rate_limit_exceeded' });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    t.clock.advance(retryAfter * 1000);
    expectStatus(await chat(), 200);
    // The requests held (and the one refused) each left a usage row; the bad one never reached the meter.
    const usage = await t.call('GET', `${API}/usage/models`);
    expect(usage.body.data.find((row: { model: string }) => row.model === 'local/echo')).toMatchObject({ requests: 4, refused_requests: 1 });
  });

  it('answers with the rate-limit headers of the protocol its route speaks, as that provider writes them, beside its own', async () => {
    // A window of its own: a minute on, 15 s into it.
    const now = t.clock.now().getTime();
    t.clock.advance(Math.ceil(now / 60_000) * 60_000 + 15_000 - now);
    const windowEnd = new Date(Math.ceil(t.clock.now().getTime() / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');

    const openai = (await chat()).headers;
    expect(Object.fromEntries([...openai].filter(([name]) => name.includes('ratelimit')))).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': '45',
      'x-ratelimit-limit-tokens': expect.stringMatching(/^\d+$/),
      'x-ratelimit-remaining-tokens': expect.stringMatching(/^\d+$/),
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '2',
      'x-ratelimit-reset-requests': '45s',
      'x-ratelimit-reset-tokens': '45s',
    });

    const messages = await t.call('POST', `${API}/messages`, {
      body: { model: 'local/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] },
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expectStatus(messages, 200);
    const anthropic = Object.fromEntries([...messages.headers].filter(([name]) => name.includes('ratelimit')));
    expect(anthropic).toMatchObject({
      'x-ratelimit-remaining': '1',
      'anthropic-ratelimit-requests-limit': '3',
      'anthropic-ratelimit-requests-remaining': '1',
      'anthropic-ratelimit-requests-reset': windowEnd,
      'anthropic-ratelimit-tokens-limit': openai.get('x-ratelimit-limit-tokens'),
      'anthropic-ratelimit-tokens-remaining': expect.stringMatching(/^\d+$/),
      'anthropic-ratelimit-tokens-reset': windowEnd,
    });
    expect(Object.keys(anthropic).filter((name) => name.endsWith('-requests'))).toEqual([]);
  });
});
