import { afterEach, expect, it } from 'vitest';
import type { Store, UsageFilter } from '../../server/store/types.js';
import { describeEachBackend, newDeveloper, usageRow } from '../helpers/stores.js';

/**
 * Usage rows reach the rollups in batches (usage-rollups.ts): until a roll, a row is pending, and
 * the reports add the pending rows of their window to the rollups they read. So a report answers
 * the same whether its rows are pending, rolled up, or some of each; here the store rolls only
 * when asked, so every case knows which.
 */
describeEachBackend('usage rows pending for the rollups', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>> | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  /** Rows across two days and their hours, of API keys and of two users, in both modes. */
  const rowsOf = (appUuid: string, batch: string) =>
    ['2026-03-01T22:15:00.000Z', '2026-03-01T23:59:59.999Z', '2026-03-02T00:00:00.000Z', '2026-03-02T01:30:00.000Z', '2026-03-02T14:05:00.000Z'].flatMap((at, i) => [
      usageRow(appUuid, `${batch}-${i}-key`, { at, inputTokens: 10 + i, model: i % 2 ? 'm1' : 'm2' }),
      usageRow(appUuid, `${batch}-${i}-ada`, { at, address: 'ada', outputTokens: 3 + i, status: i === 3 ? 'refused' : 'ok' }),
      usageRow(appUuid, `${batch}-${i}-bob`, { at, address: 'bob', livemode: i % 2 === 0, cacheReadTokens: i }),
    ]);

  /** Every report of the app over windows that take rollups whole, cut hours at both ends, and sit inside one hour. */
  async function reports(store: Store, appUuid: string) {
    const windows = [
      ['2026-03-01T00:00:00.000Z', '2026-03-03T00:00:00.000Z'],
      ['2026-03-01T22:30:00.000Z', '2026-03-02T14:00:00.000Z'],
      ['2026-03-02T00:00:00.000Z', '2026-03-02T00:00:00.000Z'],
      ['2026-03-02T14:00:00.001Z', '2026-03-02T14:59:59.999Z'],
    ];
    const answers: unknown[] = [];
    for (const [start, end] of windows) {
      for (const livemode of [true, false]) {
        for (const address of [undefined, 'ada']) {
          const filter: UsageFilter = { appUuid, livemode, start: start as string, end: end as string, ...(address ? { address } : {}) };
          answers.push(
            await store.usage.byModel(filter),
            await store.usage.byBucket(filter, 'hour'),
            await store.usage.byBucket(filter, 'day'),
            await store.usage.byUser(filter, { limit: 10, offset: 0 }),
          );
        }
      }
    }
    return answers;
  }

  it('a report answers the same with its rows pending, rolled up, and some of each', async () => {
    opened = await backend.open({ rollAfterMs: null });
    const { store } = opened;
    const { newApp } = await newDeveloper(store);
    const { appUuid } = await newApp();
    for (const row of rowsOf(appUuid, 'first')) await store.usage.record(row);

    const pending = await reports(store, appUuid);
    // Read from pending rows only, the whole-days window counts them all: 15 requests, 2 refused.
    const [totals] = await store.usage.byUser({ appUuid, livemode: true, start: '2026-03-01T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z' }, { limit: 10, offset: 0 }).then((page) => page.items);
    expect(totals).toMatchObject({ address: null, requests: 5, inputTokens: 60 });
    await store.usage.rollUp();
    expect(await reports(store, appUuid)).toEqual(pending);

    // More rows, pending beside the rolled-up ones: the reports count both, and a roll changes nothing.
    for (const row of rowsOf(appUuid, 'second')) await store.usage.record(row);
    const mixed = await reports(store, appUuid);
    expect(mixed).not.toEqual(pending);
    await store.usage.rollUp();
    expect(await reports(store, appUuid)).toEqual(mixed);
    // Rolled up once each: rolling again adds nothing.
    await store.usage.rollUp();
    expect(await reports(store, appUuid)).toEqual(mixed);
  });
});
