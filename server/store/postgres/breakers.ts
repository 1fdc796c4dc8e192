import type { Sql } from './database.js';
import type { BreakerRecord, BreakerStore } from '../types.js';

interface Row {
  state: BreakerRecord['state'];
  failures: number;
  window_start_ms: number;
  since_ms: number;
}

const recordOf = (row: Row | undefined): BreakerRecord | null =>
  row ? { state: row.state, failures: row.failures, windowStartMs: row.window_start_ms, sinceMs: row.since_ms } : null;

/**
 * How long a read answers again: every routed request reads its target's breaker, and a read per
 * request was a round trip per request. Another instance's change shows within this time; this
 * instance's own at once.
 */
export const BREAKER_READ_TTL_MS = 250;

/**
 * Circuit breakers every instance shares: what one instance learns of a dead target spares the
 * others the same failures (within BREAKER_READ_TTL_MS). A change locks the target's row for its
 * transaction, so of two instances that see a cooldown end at once, one sends the probe.
 */
export function createPostgresBreakers(sql: Sql, now: () => number = Date.now): BreakerStore {
  const recent = new Map<string, { record: BreakerRecord | null; readAt: number }>();
  // A read that began before a change must not put the old answer back.
  let generation = 0;
  return {
    async read(target) {
      const cached = recent.get(target);
      if (cached && now() - cached.readAt < BREAKER_READ_TTL_MS) return cached.record;
      const ticket = { generation, readAt: now() };
      const [row] = await sql<Row[]>`SELECT state, failures, window_start_ms, since_ms FROM breakers WHERE target = ${target}`;
      const record = recordOf(row);
      if (ticket.generation === generation) recent.set(target, { record, readAt: ticket.readAt });
      return record;
    },
    async update(target, change) {
      generation++;
      recent.delete(target);
      return sql.begin(async (tx) => {
        // A row to lock even for a target never seen: two first failures at once both count.
        await tx`INSERT INTO breakers (target, state, failures, window_start_ms, since_ms) VALUES (${target}, 'closed', 0, 0, 0) ON CONFLICT (target) DO NOTHING`;
        const [row] = await tx<Row[]>`SELECT state, failures, window_start_ms, since_ms FROM breakers WHERE target = ${target} FOR UPDATE`;
        const current = recordOf(row);
        const next = change(current);
        if (!next) return current;
        await tx`
          UPDATE breakers SET state = ${next.state}, failures = ${next.failures}, window_start_ms = ${next.windowStartMs}, since_ms = ${next.sinceMs}
          WHERE target = ${target}`;
        return next;
      }).finally(() => {
        generation++;
        recent.delete(target);
      });
    },
  };
}
