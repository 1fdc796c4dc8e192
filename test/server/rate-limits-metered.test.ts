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
});
