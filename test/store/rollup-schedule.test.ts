import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createRollSchedule, ROLL_AFTER_MS, ROLL_BATCH } from '../../server/store/rollup-schedule.js';

/** When pending usage rows are rolled up: a roll that stands for the store's, counting what it is asked. */
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A list of `pending` rows, rolled `ROLL_BATCH` at most at a time; `fail` makes the next rolls throw. */
function pendingList(pending: number) {
  const list = { pending, rolls: 0, fail: false };
  const roll = (limit: number) => {
    if (list.fail) throw new Error('database away');
    list.rolls++;
    const taken = Math.min(limit, list.pending);
    list.pending -= taken;
    return taken;
  };
  return { list, roll };
}

it('rolls up a while after a write, batch after batch until the list is short, and not before', async () => {
  const { list, roll } = pendingList(2 * ROLL_BATCH + 5);
  const rolls = createRollSchedule(roll);
  rolls.written();
  rolls.written();
  await vi.advanceTimersByTimeAsync(ROLL_AFTER_MS - 1);
  expect(list.rolls).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(list.rolls).toBe(1);
  // The next batches, each after a turn of the event loop.
  await vi.runAllTimersAsync();
  expect(list).toMatchObject({ pending: 0, rolls: 3 });
  // Nothing written since: no roll.
  await vi.advanceTimersByTimeAsync(10 * ROLL_AFTER_MS);
  expect(list.rolls).toBe(3);
});

it('a failed roll is logged once, its rows wait for the next, and close rolls what is left', async () => {
  const { list, roll } = pendingList(7);
  const lines: string[] = [];
  const rolls = createRollSchedule(roll, { log: (line) => lines.push(line) });
  list.fail = true;
  rolls.written();
  await vi.advanceTimersByTimeAsync(ROLL_AFTER_MS);
  rolls.written();
  await vi.advanceTimersByTimeAsync(ROLL_AFTER_MS);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('database away');
  expect(list.pending).toBe(7);
  list.fail = false;
  await rolls.close();
  expect(list.pending).toBe(0);
  // Closed: a write no longer schedules a roll.
  list.pending = 3;
  rolls.written();
  await vi.advanceTimersByTimeAsync(10 * ROLL_AFTER_MS);
  expect(list.pending).toBe(3);
});

it('with no delay set (null), rolls only when asked', async () => {
  const { list, roll } = pendingList(4);
  const rolls = createRollSchedule(roll, { afterMs: null });
  rolls.written();
  await vi.advanceTimersByTimeAsync(10 * ROLL_AFTER_MS);
  expect(list.rolls).toBe(0);
  await rolls.now();
  expect(list).toMatchObject({ pending: 0, rolls: 1 });
});

it('lets the event loop run between two batches: a long list never holds it for all its rolls', async () => {
  vi.useRealTimers();
  const order: string[] = [];
  const { roll } = pendingList(2 * ROLL_BATCH + 5);
  const rolls = createRollSchedule((limit) => {
    order.push('roll');
    return roll(limit);
  }, { afterMs: null });
  setImmediate(() => order.push('event loop'));
  await rolls.now();
  expect(order).toEqual(['roll', 'event loop', 'roll', 'roll']);
});
