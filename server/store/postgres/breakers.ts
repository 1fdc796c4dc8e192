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
 * Circuit breakers every instance shares: what one instance learns of a dead target spares the
 * others the same failures. A change locks the target's row for its transaction, so of two
 * instances that see a cooldown end at once, one sends the probe.
 */
export function createPostgresBreakers(sql: Sql): BreakerStore {
  return {
    async read(target) {
      const [row] = await sql<Row[]>`SELECT state, failures, window_start_ms, since_ms FROM breakers WHERE target = ${target}`;
      return recordOf(row);
    },
    async update(target, change) {
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
      });
    },
  };
}
