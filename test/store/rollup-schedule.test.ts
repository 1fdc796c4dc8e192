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

it('a roll asked for waits for the scheduled one under way, and a scheduled one for it: one roll at a time', async () => {
  let running = 0;
  let most = 0;
  const waiting: (() => void)[] = [];
  const { list, roll } = pendingList(3);
  // A roll that waits for the test to let it finish, as a statement waits for PostgreSQL's answer.
  const rolls = createRollSchedule(async (limit) => {
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => waiting.push(resolve));
    running--;
    return roll(Math.min(limit, 1));
  });
  const letOneFinish = async () => {
    waiting.shift()?.();
    await vi.advanceTimersByTimeAsync(0);
  };
  rolls.written();
  await vi.advanceTimersByTimeAsync(ROLL_AFTER_MS);
  expect(running).toBe(1);
  const asked = rolls.now();
  await letOneFinish();
  // The roll asked for runs now; a write schedules another, which must wait for it.
  rolls.written();
  await vi.advanceTimersByTimeAsync(ROLL_AFTER_MS);
  expect(running).toBe(1);
  await letOneFinish();
  await asked;
  await letOneFinish();
  await letOneFinish();
  expect(most).toBe(1);
  expect(list.pending).toBe(0);
});
