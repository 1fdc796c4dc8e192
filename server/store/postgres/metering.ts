import type { Query, Sql } from './database.js';
import type { Accounts } from './accounts.js';
import { usageWrites } from './usage.js';
import type { AppScope, HoldResult, Store } from '../types.js';

/**
 * Metering shared by every instance: a hold is one conditional UPDATE of the account (balance
 * minus what is already held must cover it) plus its row in `holds`, in one statement, so no
 * interleaving of instances can reserve more than the balance. Settling removes the hold and
 * charges in one statement, with the ledger entry and the usage row.
 */
export function createMeteringRepository(sql: Sql, accounts: Accounts, instanceId: string): Store['metering'] {
  /** The conditional reservation, and the hold's row; false when the balance cannot cover it. */
  async function reserve(q: Query, accountId: number, amountMicro: number, requestId: string, cappedAddress: string | null) {
    const reserved = await q`
      WITH reserved AS (
        UPDATE accounts SET held_micro = held_micro + ${amountMicro}
        WHERE id = ${accountId} AND balance_micro - held_micro >= ${amountMicro} RETURNING id
      )
      INSERT INTO holds (request_id, account_id, amount_micro, instance_id, capped_address)
      SELECT ${requestId}, id, ${amountMicro}, ${instanceId}, ${cappedAddress} FROM reserved RETURNING id`;
    return reserved.count === 1;
  }

  /**
   * A pooled app holding for one of its users: with the user's row locked, their settled spend,
   * their holds on any instance and this one must fit their limit; then the app's balance must
   * cover it. The answer when either refuses, else null (held).
   */
  async function holdWithinUserLimit(accountId: number, user: AppScope & { address: string }, amountMicro: number, requestId: string): Promise<HoldResult | null> {
    const { address } = user;
    return sql.begin(async (tx) => {
      const [limits] = await tx<{ credit_limit_micro: number | null; spent_micro: number }[]>`
        SELECT credit_limit_micro, spent_micro FROM app_users
        WHERE app_uuid = ${user.appUuid} AND livemode = ${user.livemode} AND address = ${address} FOR UPDATE`;
      const limit = limits?.credit_limit_micro ?? null;
      if (limits && limit !== null) {
        const [pending] = await tx<{ micro: number }[]>`
          SELECT COALESCE(SUM(amount_micro), 0)::bigint AS micro FROM holds WHERE account_id = ${accountId} AND capped_address = ${address}`;
        const pendingMicro = pending?.micro ?? 0;
        if (limits.spent_micro + pendingMicro + amountMicro > limit) {
          return { ok: false as const, userLimit: { spentMicro: limits.spent_micro, pendingMicro, limitMicro: limit } };
        }
      }
      if (amountMicro === 0) return { ok: true as const };
      return (await reserve(tx, accountId, amountMicro, requestId, limit === null ? null : address)) ? { ok: true as const } : null;
    });
  }

  return {
    async hold(payer, amountMicro, requestId, capUser) {
      const id = await accounts.of(payer);
      if (amountMicro === 0 && capUser === undefined) return { ok: true as const };
      // A refusal reports what was available; when that was enough after all (holds settled
      // meanwhile), the reservation is tried again rather than let through unheld.
      for (let attempt = 0; ; attempt++) {
        if (capUser !== undefined && payer.kind === 'app') {
          const capped = await holdWithinUserLimit(id, { appUuid: payer.appUuid, livemode: !payer.test, address: capUser }, amountMicro, requestId);
          if (capped) return capped;
        } else if (await reserve(sql, id, amountMicro, requestId, null)) {
          return { ok: true as const };
        }
        const [row] = await sql<{ available: number }[]>`
          SELECT GREATEST(0, balance_micro - held_micro) AS available FROM accounts WHERE id = ${id}`;
        const available = row?.available ?? 0;
        if (amountMicro > available || attempt === 2) return { ok: false as const, availableMicro: Math.min(available, amountMicro - 1) };
      }
    },

    async settle(payer, _heldMicro, costMicro, usage) {
      const accountId = await accounts.of(payer);
      // One statement, so one round trip and atomic: the hold ends (it may be gone already: the
      // instance that made it was taken for dead and its holds released), the account row is
      // locked, the charge is what the balance allows beside the other holds, and the ledger
      // entry, the user's spend, the usage row (what it cost and what was charged: a shortfall
      // stays visible to svc serve --check) and its hourly rollup are written with it.
      const [row] = await sql<{ charged: number }[]>`
        WITH released AS (
          DELETE FROM holds WHERE id = (
            SELECT id FROM holds WHERE request_id = ${usage.requestId} AND account_id = ${accountId} LIMIT 1
          ) RETURNING amount_micro
        ), account AS (
          SELECT id, balance_micro, held_micro - COALESCE((SELECT SUM(amount_micro) FROM released), 0)::bigint AS held_after
          FROM accounts WHERE id = ${accountId} FOR UPDATE
        ), charge AS (
          SELECT id, held_after, LEAST(${costMicro}::bigint, GREATEST(0, balance_micro - held_after))::bigint AS charged FROM account
        ), moved AS (
          UPDATE accounts SET held_micro = charge.held_after, balance_micro = accounts.balance_micro - charge.charged
          FROM charge WHERE accounts.id = charge.id RETURNING accounts.balance_micro, charge.charged
        ), entry AS (
          INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, reference, created_at)
          SELECT ${accountId}, -charged, balance_micro, 'inference', ${`usage:${usage.requestId}`},
                 ${`${usage.provider}/${usage.model}`}, ${usage.at}
          FROM moved WHERE charged > 0
        ), spend AS (
          UPDATE app_users SET spent_micro = spent_micro + (SELECT charged FROM moved)
          -- Spend is live money: test mode is never charged, so only live users spend.
          WHERE app_uuid = ${usage.appUuid} AND livemode AND address = ${usage.address} AND (SELECT charged FROM moved) > 0
        ), ${usageWrites(sql, usage, costMicro, 'moved')}
        SELECT charged FROM moved`;
      if (!row) throw new Error(`no account ${accountId}`);
      return { chargedMicro: row.charged };
    },

    async balance(payer) {
      const id = await accounts.of(payer);
      const [row] = await sql<{ balance_micro: number; held_micro: number }[]>`
        SELECT balance_micro, held_micro FROM accounts WHERE id = ${id}`;
      return { balanceMicro: row?.balance_micro ?? 0, heldMicro: row?.held_micro ?? 0 };
    },
  };
}
