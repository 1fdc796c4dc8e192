import { expect, it } from 'vitest';
import type { RateCount } from '../../server/store/types.js';
import { credits, describeEachBackend, STORE_TEST_AT, usageRow } from '../helpers/stores.js';
import { useFundedApp } from './funded-app.js';

/**
 * A metered request is counted against its rate limits in the same step as its hold (one round
 * trip on PostgreSQL), and its tokens in the same step as its settlement: past a limit nothing is
 * held, and every path of the hold (plain, budgeted, nothing to hold) counts exactly once.
 */
describeEachBackend('rate counts with holds', (backend) => {
  const app = useFundedApp(backend, 10);

  const WINDOW = 1_764_064_800_000;
  const rate = (over: Partial<RateCount> = {}): RateCount => ({
    windowStart: WINDOW,
    requestKey: 'requests:key:k1',
    requestLimit: 2,
    tokenKey: 'tokens:key:k1',
    tokenLimit: 100,
    ...over,
  });

  it('counts each request with its hold, and past the request limit holds nothing', async () => {
    expect(await app.store.metering.hold(app.payer, credits(1), 'r1', undefined, undefined, rate())).toEqual({ ok: true, rate: { requests: 1, tokens: 0 } });
    expect(await app.store.metering.hold(app.payer, credits(1), 'r2', undefined, undefined, rate())).toEqual({ ok: true, rate: { requests: 2, tokens: 0 } });
    expect(await app.store.metering.hold(app.payer, credits(1), 'r3', undefined, undefined, rate())).toEqual({ ok: false, rateLimited: true, rate: { requests: 3, tokens: 0 } });
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(10), heldMicro: credits(2) });
    // The next window starts afresh.
    const next = rate({ windowStart: WINDOW + 60_000 });
    expect(await app.store.metering.hold(app.payer, credits(1), 'r4', undefined, undefined, next)).toEqual({ ok: true, rate: { requests: 1, tokens: 0 } });
  });

  it('a refusal for the balance still counts the request, once', async () => {
    expect(await app.store.metering.hold(app.payer, credits(11), 'big', undefined, undefined, rate())).toMatchObject({ ok: false, rate: { requests: 1, tokens: 0 } });
    expect(await app.store.rateCounters.get('requests:key:k1', WINDOW)).toBe(1);
  });

  it('tokens settled count in the same step, and once they reach the limit nothing is held', async () => {
    expect((await app.store.metering.hold(app.payer, credits(1), 't1', undefined, undefined, rate({ requestLimit: 10 }))).ok).toBe(true);
    const tokens = { key: 'tokens:key:k1', windowStart: WINDOW, tokens: 100 };
    expect(await app.store.metering.settle(app.payer, credits(1), credits(0.5), usageRow(app.appUuid, 't1', { costMicro: credits(0.5) }), undefined, tokens)).toEqual({
      chargedMicro: credits(0.5),
    });
    expect(await app.store.rateCounters.get('tokens:key:k1', WINDOW)).toBe(100);
    expect(await app.store.metering.hold(app.payer, credits(1), 't2', undefined, undefined, rate({ requestLimit: 10 }))).toEqual({
      ok: false,
      rateLimited: true,
      rate: { requests: 2, tokens: 100 },
    });
    // A settlement retried after it was written adds no tokens either.
    await app.store.metering.settle(app.payer, credits(1), credits(0.5), usageRow(app.appUuid, 't1', { costMicro: credits(0.5) }), undefined, tokens);
    expect(await app.store.rateCounters.get('tokens:key:k1', WINDOW)).toBe(100);
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(9.5), heldMicro: 0 });
  });

  it('a budgeted hold and one of nothing count too', async () => {
    const windowAt = () => ({ start: STORE_TEST_AT, end: '2026-12-25T10:00:00.000Z', rolled: false });
    const budgets = { user: { appUuid: app.appUuid, address: '0xnobody' }, windowAt };
    expect(await app.store.metering.hold(app.payer, credits(1), 'b1', undefined, budgets, rate())).toMatchObject({ ok: true, rate: { requests: 1 } });
    expect(await app.store.metering.hold(app.payer, 0, 'z1', undefined, undefined, rate())).toEqual({ ok: true, rate: { requests: 2, tokens: 0 } });
    expect(await app.store.metering.hold(app.payer, 0, 'z2', undefined, undefined, rate())).toEqual({ ok: false, rateLimited: true, rate: { requests: 3, tokens: 0 } });
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(10), heldMicro: credits(1) });
  });

  // On PostgreSQL the holds of one turn are one statement (counted-holds.ts): each must be
  // answered as if they had come one after another, in the order they were counted.
  it('holds asked at once are each counted once, and answered as one after another would be', async () => {
    const requestLimit = 4;
    const asked = [credits(3), credits(8), credits(1), credits(1), credits(1)];
    // The payer's account known (as it is once a key has been used), so the holds all ask in one turn.
    await app.store.metering.balance(app.payer);
    const answers = await Promise.all(asked.map((micro, i) => app.store.metering.hold(app.payer, micro, `a${i}`, undefined, undefined, rate({ requestLimit }))));
    const counted = answers.map((answer, i) => ({ answer, micro: asked[i] as number, requests: answer.rate?.requests ?? 0 }));
    counted.sort((a, b) => a.requests - b.requests);
    expect(counted.map(({ requests }) => requests)).toEqual([1, 2, 3, 4, 5]);
    let available = credits(10);
    for (const { answer, micro, requests } of counted) {
      if (requests > requestLimit) expect(answer).toMatchObject({ ok: false, rateLimited: true });
      else if (micro <= available) {
        expect(answer.ok).toBe(true);
        available -= micro;
      } else {
        // Refused for the balance, saying less was available than it asked.
        expect(answer).toMatchObject({ ok: false, availableMicro: expect.any(Number) });
        expect((answer as { availableMicro: number }).availableMicro).toBeLessThan(micro);
      }
    }
    expect(await app.store.metering.balance(app.payer)).toEqual({ balanceMicro: credits(10), heldMicro: credits(10) - available });
    expect(await app.store.rateCounters.get('requests:key:k1', WINDOW)).toBe(asked.length);
  });
});
