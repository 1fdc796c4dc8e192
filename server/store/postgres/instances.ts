import type { Sql, Tx } from './database.js';

/** How often an instance says it is alive, and after how long without a word it is taken for dead. */
export const HEARTBEAT_MS = 5_000;
export const DEAD_AFTER_SECONDS = 30;
/** A lease outlives the billing clock's longest sleep (60 s), so its holder keeps it while alive. */
const LEASE_SECONDS = 90;

/**
 * This instance among the others on one database: it registers, says it is alive every few
 * seconds, and cleans up after instances that stopped saying so (killed, or cut off): their holds
 * are released, so a crash never locks credits away. Rate-limit windows long past are dropped.
 */
export function createInstance(sql: Sql, instanceId: string) {
  let timer: NodeJS.Timeout | null = null;

  async function sweep(): Promise<void> {
    await sql.begin(async (tx) => {
      const dead = await tx<{ id: string }[]>`
        DELETE FROM instances WHERE seen_at < now() - make_interval(secs => ${DEAD_AFTER_SECONDS}) RETURNING id`;
      if (dead.length > 0) await releaseHolds(tx, dead.map((row) => row.id));
    });
    await sql`DELETE FROM rate_counters WHERE window_start < (SELECT MAX(window_start) FROM rate_counters) - 120000`;
  }

  async function beat(): Promise<void> {
    await sql`
      INSERT INTO instances (id) VALUES (${instanceId})
      ON CONFLICT (id) DO UPDATE SET seen_at = now()`;
    await sweep();
  }

  return {
    instanceId,
    /** Registers and starts the heartbeat. */
    async start(): Promise<void> {
      await beat();
      timer = setInterval(() => void beat().catch(() => {}), HEARTBEAT_MS);
      timer.unref();
    },
    /** At a clean shutdown: this instance's holds go (its requests have ended), and so does it. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await sql.begin(async (tx) => {
        await releaseHolds(tx, [instanceId]);
        await tx`DELETE FROM instances WHERE id = ${instanceId}`;
        await tx`DELETE FROM leases WHERE holder = ${instanceId}`;
      });
    },
    /**
     * Runs `work` while holding an advisory lock named after the task, on a connection of its
     * own: another instance asking for the same task waits until the work is done.
     */
    async exclusively<T>(task: string, work: () => Promise<T>): Promise<T> {
      const connection = await sql.reserve();
      try {
        await connection`SELECT pg_advisory_lock(hashtext(current_schema() || ':svc:' || ${task}))`;
        try {
          return await work();
        } finally {
          await connection`SELECT pg_advisory_unlock(hashtext(current_schema() || ':svc:' || ${task}))`;
        }
      } finally {
        connection.release();
      }
    },
    /**
     * Whether this instance may run `task` now (it holds or takes its lease): work that must run
     * once across instances, such as the billing clock.
     */
    async leads(task: string): Promise<boolean> {
      const rows = await sql`
        INSERT INTO leases (name, holder, expires_at) VALUES (${task}, ${instanceId}, now() + make_interval(secs => ${LEASE_SECONDS}))
        ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < now()
        RETURNING holder`;
      return rows.count === 1;
    },
  };
}

/** Gives back what the instances' holds reserved, and forgets the holds. */
async function releaseHolds(tx: Tx, instanceIds: string[]): Promise<void> {
  await tx`
    WITH released AS (
      DELETE FROM holds WHERE instance_id = ANY(${instanceIds}) RETURNING account_id, amount_micro
    ), per_account AS (
      SELECT account_id, SUM(amount_micro)::bigint AS amount FROM released GROUP BY account_id
    )
    UPDATE accounts SET held_micro = held_micro - per_account.amount FROM per_account WHERE accounts.id = per_account.account_id`;
}

export type Instance = ReturnType<typeof createInstance>;
