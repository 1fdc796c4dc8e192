import { describe, expect, it } from 'vitest';
import { createTurnGroups, MOST_PER_WRITE } from '../../server/store/postgres/turn-groups.js';

/** The shared store's gathering of work into statements (server/store/postgres/turn-groups.ts), with writes the test ends. */
describe('turn groups', () => {
  /** Groups whose writes are recorded and end when the test says so. */
  function recorded() {
    const writes: { head: string; items: number[]; end(): void; fail(): void }[] = [];
    const groups = createTurnGroups<string, number>(
      (head, items) =>
        new Promise<void>((resolve, reject) => {
          writes.push({ head, items: [...items], end: resolve, fail: () => reject(new Error('lost')) });
        }),
    );
    return { groups, writes };
  }
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('the items of one turn are one write per key, at the turn’s end', async () => {
    const { groups, writes } = recorded();
    groups.add('a', 'A', 1);
    groups.add('b', 'B', 2);
    groups.add('a', 'A', 3);
    expect(writes).toHaveLength(0);
    await nextTurn();
    expect(writes.map(({ head, items }) => [head, items])).toEqual([
      ['A', [1, 3]],
      ['B', [2]],
    ]);
  });

  it('while a key’s write is in flight its items wait, over many turns, and go together in order when it ends', async () => {
    const { groups, writes } = recorded();
    groups.add('a', 'A', 1);
    await nextTurn();
    for (const item of [2, 3, 4]) {
      groups.add('a', 'A', item);
      await nextTurn();
    }
    // Another key is not held up.
    groups.add('b', 'B', 9);
    await nextTurn();
    expect(writes.map(({ items }) => items)).toEqual([[1], [9]]);
    writes[0]?.end();
    await nextTurn();
    expect(writes.map(({ items }) => items)).toEqual([[1], [9], [2, 3, 4]]);
  });

  it('a write that failed does not hold up the next of its key', async () => {
    const { groups, writes } = recorded();
    groups.add('a', 'A', 1);
    await nextTurn();
    groups.add('a', 'A', 2);
    writes[0]?.fail();
    await nextTurn();
    expect(writes.map(({ items }) => items)).toEqual([[1], [2]]);
  });

  it('a writer that throws at once leaves the groups after it, and the next write of its key, to go on', async () => {
    const written: number[][] = [];
    const groups = createTurnGroups<string, number>((head, items) => {
      if (items.includes(1)) throw new Error('thrown, not rejected');
      written.push(items);
      return Promise.resolve();
    });
    groups.add('a', 'A', 1);
    groups.add('b', 'B', 2);
    await nextTurn();
    groups.add('a', 'A', 3);
    await groups.drain();
    expect(written).toEqual([[2], [3]]);
  });

  it('a group past the most one write takes is written in parts, one after another', async () => {
    const { groups, writes } = recorded();
    for (let item = 0; item < MOST_PER_WRITE + 5; item++) groups.add('a', 'A', item);
    await nextTurn();
    expect(writes.map(({ items }) => items.length)).toEqual([MOST_PER_WRITE]);
    writes[0]?.end();
    await nextTurn();
    expect(writes.map(({ items }) => items.length)).toEqual([MOST_PER_WRITE, 5]);
    expect(writes[1]?.items[0]).toBe(MOST_PER_WRITE);
  });

  it('drain writes what is gathered and waits for every write, those that waited included', async () => {
    const { groups, writes } = recorded();
    groups.add('a', 'A', 1);
    await nextTurn();
    groups.add('a', 'A', 2);
    groups.add('b', 'B', 3);
    let drained = false;
    const draining = groups.drain().then(() => (drained = true));
    await nextTurn();
    expect(writes.map(({ items }) => items)).toEqual([[1], [3]]);
    writes[1]?.end();
    writes[0]?.end();
    await nextTurn();
    expect(drained).toBe(false);
    expect(writes.map(({ items }) => items)).toEqual([[1], [3], [2]]);
    writes[2]?.end();
    await draining;
    expect(drained).toBe(true);
  });

  it('drain also writes what is added while it waits', async () => {
    const { groups, writes } = recorded();
    groups.add('a', 'A', 1);
    await nextTurn();
    let drained = false;
    const draining = groups.drain().then(() => (drained = true));
    groups.add('b', 'B', 2);
    writes[0]?.end();
    await nextTurn();
    expect(drained).toBe(false);
    expect(writes.map(({ items }) => items)).toEqual([[1], [2]]);
    writes[1]?.end();
    await draining;
  });
});
