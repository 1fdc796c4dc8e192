import { afterEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../server/clock.js';
import { createLocalAdapter } from '../../server/providers/local/adapter.js';
import type { Requested } from '../../server/providers/registry.js';
import type { ModelEntry } from '../../server/providers/types.js';
import { createRouting } from '../../server/services/inference/routing/runner.js';
import { createMemoryBreakers } from '../../server/store/memory-breakers.js';

/**
 * A latency route measures its targets by the server's clock (the injected one), as every other
 * time of the routing is: a target that takes 150 ms of the clock is slower than one that takes
 * 10 ms, whatever real time says (here real time is made to say the opposite).
 */
afterEach(() => vi.restoreAllMocks());

const entry = (id: string): ModelEntry => ({
  id,
  provider: id.split('/')[0] as string,
  model: id.split('/')[1] as string,
  inputPrice: 1,
  outputPrice: 1,
  contextLength: 8192,
  defaultMaxOutputTokens: 100,
  capabilities: ['chat'],
});

describe('a latency route, by the clock', () => {
  it('leads with the target quickest on the clock, and real time does not count', async () => {
    const clock = manualClock('2026-03-01T12:00:00.000Z');
    // Real time runs the other way: the quick target takes a second of it, the slow one none.
    let real = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => real);
    const took = { 'slow/m': { clockMs: 150, realMs: 0 }, 'quick/m': { clockMs: 10, realMs: 1_000 } } as const;

    const routing = createRouting({ clock, store: { breakers: createMemoryBreakers() }, random: () => 0.99 });
    const adapter = createLocalAdapter();
    const route: Requested = {
      id: 'route/quickest',
      strategy: 'latency',
      targets: [
        { entry: entry('slow/m'), adapter, weight: 1 },
        { entry: entry('quick/m'), adapter, weight: 1 },
      ],
    };
    const served = async () => {
      const plan = routing.plan([route], 'answer');
      const { target } = await routing.run(plan, new AbortController().signal, async (each) => {
        const time = took[each.entry.id as keyof typeof took];
        clock.advance(time.clockMs);
        real += time.realMs;
        return each.entry.id;
      });
      return target.entry.id;
    };

    // Each measured first, in the route's order; then the quickest on the clock, every time (no exploration).
    expect(await served()).toBe('slow/m');
    expect(await served()).toBe('quick/m');
    for (let i = 0; i < 5; i++) expect(await served()).toBe('quick/m');
    // And the order behind it: the slow one as the fallback.
    expect(routing.plan([route], 'answer').targets.map((target) => target.entry.id)).toEqual(['quick/m', 'slow/m']);
  });
});
