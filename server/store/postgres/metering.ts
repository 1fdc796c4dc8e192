import type { Query, Sql } from './database.js';
import type { Accounts } from './accounts.js';
import { createCountedHolds } from './counted-holds.js';
import { createTurnGroups } from './turn-groups.js';
import { settleGroupStatement, settleOneStatement, type Settled, type Settlement } from './settle-statements.js';
import { budgetFits, budgetFound, USER_BUDGET_SELECT, userBudgetLimit, withHold, type BudgetFound, type UserBudgetRow } from '../budget-standing.js';
import {
  rateAllows,
  type AppScope,
  type BudgetChecks,
  type HeldBudgets,
  type HoldResult,
  type RateCounter,
  type RateStanding,
  type Store,
} from '../types.js';

interface PendingSettle extends Settlement {
  accountId: number;
  resolve(result: { chargedMicro: number }): void;
  reject(error: unknown): void;
}

/**
 * Metering shared by every instance: a hold is one conditional UPDATE of the account (balance
 * minus what is already held must cover it) plus its row in `holds`, in one statement, so no
 * interleaving of instances can reserve more than the balance. Settling removes the hold and
 * charges in one statement, with the ledger entry and the usage row. `written` hears of each
 * group of settlements written (the rollup schedule).
 */
export function createMeteringRepository(
  sql: Sql,
  accounts: Accounts,
  instanceId: string,
  rateCounters: RateCounter,
  written: () => void,
): Store['metering'] & { drain(): Promise<void> } {
  /** The conditional reservation, and the hold's row; false when the balance cannot cover it. */
  async function reserve(q: Query, accountId: number, amountMicro: number, requestId: string, cappedAddress: string | null, keyId: string | null = null) {
    const reserved = await q`
      WITH reserved AS (
        UPDATE accounts SET held_micro = held_micro + ${amountMicro}
        WHERE id = ${accountId} AND balance_micro - held_micro >= ${amountMicro} RETURNING id
      )
      INSERT INTO holds (request_id, account_id, amount_micro, instance_id, capped_address, key_id)
      SELECT ${requestId}, id, ${amountMicro}, ${instanceId}, ${cappedAddress}, ${keyId} FROM reserved RETURNING id`;
    return reserved.count === 1;
  }

  /**
   * A pooled app holding for one of its users: with the user's row locked, their settled spend,
   * their holds on any instance and this one must fit their limit; then the app's balance must
   * cover it. The hold is marked with the user's address (it counts against their limit and
   * budget). The answer when either refuses, else null (held).
   */
  async function holdWithinUserLimit(
    tx: Query,
    accountId: number,
    user: AppScope & { address: string },
    amountMicro: number,
    requestId: string,
    keyId: string | null,
  ): Promise<HoldResult | null> {
    const { address } = user;
    {
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
      return (await reserve(tx, accountId, amountMicro, requestId, address, keyId)) ? { ok: true as const } : null;
    }
  }

  /**
   * Locks the paying account first, as settling does (it locks the account, then writes the key's
   * and the user's spend): a hold that locked a key or user row first and then the account could
   * deadlock with a settlement of the same key or user. A key's or a user's holds are always on
   * one account, so this also makes their holds take turns.
   */
  async function lockAccount(tx: Query, accountId: number) {
    await tx`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  }

  /** A key's budget, its row locked (so instances take turns per key): null when it has none. */
  async function lockedKeyBudget(tx: Query, keyId: string, windowAt: BudgetChecks['windowAt']): Promise<BudgetFound | null> {
    const [row] = await tx<{ budget_credits_micro: number | null; budget_period: string | null; budget_window_start: string | null; budget_spent_micro: number }[]>`
      SELECT budget_credits_micro, budget_period, budget_window_start, budget_spent_micro FROM api_keys WHERE key_id = ${keyId} FOR UPDATE`;
    if (!row || row.budget_credits_micro === null || row.budget_period === null) return null;
    const [held] = await tx<{ micro: number }[]>`SELECT COALESCE(SUM(amount_micro), 0)::bigint AS micro FROM holds WHERE key_id = ${keyId}`;
    const limit = { limitMicro: row.budget_credits_micro, period: row.budget_period };
    return budgetFound(limit, { windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro }, held?.micro ?? 0, windowAt);
  }

  /**
   * A live user's budget in force (their own, else their app's default), their row locked (so
   * instances take turns per user): null when none applies. Their holds on any instance are the
   * rows marked with their address on the paying account (the app's, or their own).
   */
  async function lockedUserBudget(tx: Query, accountId: number, user: { appUuid: string; address: string }, windowAt: BudgetChecks['windowAt']) {
    const [row] = await tx<UserBudgetRow[]>`
      SELECT ${sql.unsafe(USER_BUDGET_SELECT)} FROM app_users u JOIN apps a ON a.app_uuid = u.app_uuid
      WHERE u.app_uuid = ${user.appUuid} AND u.livemode AND u.address = ${user.address} FOR UPDATE OF u`;
    const limit = row ? userBudgetLimit(row) : null;
    if (!row || !limit) return null;
    const [held] = await tx<{ micro: number }[]>`
      SELECT COALESCE(SUM(amount_micro), 0)::bigint AS micro FROM holds WHERE account_id = ${accountId} AND capped_address = ${user.address}`;
    return budgetFound(limit, { windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro }, held?.micro ?? 0, windowAt);
  }

  /**
   * A hold through budgets (a key's, a user's): in one transaction, with their rows locked (key
   * first, then user), each window is rolled when it has ended, and each spend, its holds on any
   * instance and this one must fit; then the user limit and the balance are checked as without
   * them. The answer when a check refuses, else null when only the balance did.
   */
  async function holdWithinBudgets(
    accountId: number,
    budgets: BudgetChecks,
    amountMicro: number,
    requestId: string,
    capped: (AppScope & { address: string }) | null,
  ): Promise<HoldResult | null> {
    return sql.begin(async (tx) => {
      await lockAccount(tx, accountId);
      const key = budgets.keyId ? await lockedKeyBudget(tx, budgets.keyId, budgets.windowAt) : null;
      if (key && !budgetFits(key, amountMicro)) return { ok: false as const, budgetExceeded: { kind: 'key' as const, ...key.standing } };
      const user = budgets.user ? await lockedUserBudget(tx, accountId, budgets.user, budgets.windowAt) : null;
      if (user && !budgetFits(user, amountMicro)) return { ok: false as const, budgetExceeded: { kind: 'user' as const, ...user.standing } };
      const keyId = key ? (budgets.keyId ?? null) : null;
      const address = budgets.user?.address ?? null;
      const balanceHeld = capped
        ? await holdWithinUserLimit(tx, accountId, capped, amountMicro, requestId, keyId)
        : amountMicro === 0 || (await reserve(tx, accountId, amountMicro, requestId, address, keyId))
          ? { ok: true as const }
          : null;
      if (!balanceHeld?.ok) return balanceHeld;
      const held: HeldBudgets = {};
      if (key) {
        if (key.window.rolled) await tx`UPDATE api_keys SET budget_window_start = ${key.window.start}, budget_spent_micro = 0 WHERE key_id = ${keyId}`;
        held.key = withHold(key, amountMicro);
      }
      if (user && budgets.user) {
        if (user.window.rolled) {
          await tx`UPDATE app_users SET budget_window_start = ${user.window.start}, budget_spent_micro = 0
                   WHERE app_uuid = ${budgets.user.appUuid} AND livemode AND address = ${budgets.user.address}`;
        }
        held.user = withHold(user, amountMicro);
      }
      return key || user ? { ok: true as const, budgets: held } : { ok: true as const };
    });
  }

  /** The charge of a settlement the statement answered, or the error of an account that is not there. */
  const chargedOf = async (row: Omit<Settled, 'ord'> | undefined, item: PendingSettle) => {
    if (!row) throw new Error(`no account ${item.accountId}`);
    return row.stored ? row.charged : ((await storedCharge(item.usage.requestId)) ?? row.charged);
  };

  /** The charge stored with a request's usage row, or null when it has none. */
  async function storedCharge(requestId: string): Promise<number | null> {
    const [row] = await sql<{ charged_micro: number }[]>`SELECT charged_micro FROM usage_events WHERE request_id = ${requestId}`;
    return row ? row.charged_micro : null;
  }

  async function settleAlone(item: PendingSettle): Promise<void> {
    try {
      const [row] = await settleOneStatement(sql, item.accountId, item);
      item.resolve({ chargedMicro: await chargedOf(row, item) });
    } catch (error) {
      // Refused as a second charge (the ledger's idempotency key) because a settlement of the
      // request committed while this one ran: settled, and its row says what it was charged.
      const stored = await storedCharge(item.usage.requestId).catch(() => null);
      if (stored !== null) item.resolve({ chargedMicro: stored });
      else item.reject(error);
    }
  }

  /**
   * An account's settlements that arrived together, as one statement (settle-statements.ts): each
   * charged as it would be alone, none acknowledged before the statement has committed. When it
   * fails (one bad settlement undoes all), each is tried again alone, so one cannot fail another.
   * The same request twice in a group (a retry racing its first try) settles one after the other.
   */
  async function settleTogether(items: PendingSettle[]): Promise<void> {
    const accountId = (items[0] as PendingSettle).accountId;
    const distinct = new Set(items.map((item) => item.usage.requestId)).size === items.length;
    if (items.length > 1 && distinct) {
      const rows = await settleGroupStatement(sql, accountId, items).catch(() => null);
      if (rows) {
        const byOrd = new Map(rows.map((row) => [row.ord, row]));
        await Promise.all(
          items.map((item, ord) => chargedOf(byOrd.get(ord), item).then((chargedMicro) => item.resolve({ chargedMicro }), (error: unknown) => item.reject(error))),
        );
        return;
      }
    }
    if (distinct) await Promise.all(items.map(settleAlone));
    else for (const item of items) await settleAlone(item);
  }

  // Settlements queued in this turn of the event loop (or while the account's statement before
  // runs), grouped per account (as SQLite's group commit does): one statement per account, so a group locks one account row,
  // as a single settlement does. Should two groups still wait on each other through rows that
  // accounts share (an app key's rate counters, paid for by its users), PostgreSQL ends one and its
  // settlements are tried again alone. Closing the store waits for the groups in flight, so no
  // settlement is lost.
  const settlements = createTurnGroups<null, PendingSettle>((_, items) => settleTogether(items).finally(written));
  const countedHolds = createCountedHolds(sql, instanceId);

  /**
   * The hold once the request is counted. A refusal reports what was available; when that was
   * enough after all (holds settled meanwhile), the reservation is tried again rather than let
   * through unheld. `refusedOnce`: the plain reservation was tried already and refused.
   */
  async function holdCounted(
    id: number,
    amountMicro: number,
    requestId: string,
    user: (AppScope & { address: string }) | null,
    budgets: BudgetChecks | undefined,
    budgeted: boolean,
    refusedOnce: boolean,
  ): Promise<HoldResult> {
    if (amountMicro === 0 && !user && !budgeted) return { ok: true as const };
    for (let attempt = 0; ; attempt++) {
      if (budgets && budgeted) {
        const answer = await holdWithinBudgets(id, budgets, amountMicro, requestId, user);
        if (answer) return answer;
      } else if (user) {
        const capped = await sql.begin(async (tx) => {
          await lockAccount(tx, id);
          return holdWithinUserLimit(tx, id, user, amountMicro, requestId, null);
        });
        if (capped) return capped;
      } else if (!(attempt === 0 && refusedOnce) && (await reserve(sql, id, amountMicro, requestId, null))) {
        return { ok: true as const };
      }
      const [row] = await sql<{ available: number }[]>`
        SELECT GREATEST(0, balance_micro - held_micro) AS available FROM accounts WHERE id = ${id}`;
      const available = row?.available ?? 0;
      if (amountMicro > available || attempt === 2) return { ok: false as const, availableMicro: Math.min(available, amountMicro - 1) };
    }
  }

  return {
    /** Writes what is queued now and waits for every group in flight (at close). */
    async drain() {
      await countedHolds.drain();
      await settlements.drain();
    },

    async hold(payer, amountMicro, requestId, capUser, budgets, rate) {
      const id = await accounts.of(payer);
      const budgeted = budgets?.keyId !== undefined || budgets?.user !== undefined;
      const user = capUser !== undefined && payer.kind === 'app' ? { appUuid: payer.appUuid, livemode: !payer.test, address: capUser } : null;
      const plain = !budgeted && !user;
      let standing: RateStanding | undefined;
      let reserved = false;
      if (rate && plain && amountMicro > 0) {
        // The usual request: counted, its tokens read and its credits reserved in one statement
        // (with the others of this turn, or of the statement before's run: counted-holds.ts).
        const counted = await countedHolds.countAndReserve(id, amountMicro, requestId, rate);
        standing = { requests: counted.requests, tokens: counted.tokens };
        if (!rateAllows(rate, standing)) return { ok: false as const, rateLimited: true as const, rate: standing };
        if (counted.held) return { ok: true as const, rate: standing };
        reserved = true;
      } else if (rate) {
        const { added, read } = await rateCounters.addAndGet(rate.requestKey, rate.tokenKey, rate.windowStart, 1);
        standing = { requests: added, tokens: read };
        if (!rateAllows(rate, standing)) return { ok: false as const, rateLimited: true as const, rate: standing };
      }
      const result = await holdCounted(id, amountMicro, requestId, user, budgets, budgeted, reserved);
      return standing ? { ...result, rate: standing } : result;
    },

    async settle(payer, _heldMicro, costMicro, usage, windows, tokens) {
      const accountId = await accounts.of(payer);
      return new Promise<{ chargedMicro: number }>((resolve, reject) => {
        settlements.add(String(accountId), null, { accountId, costMicro, usage, windows, tokens, resolve, reject });
      });
    },

    async keyHeld(keyId) {
      const [row] = await sql<{ micro: number }[]>`SELECT COALESCE(SUM(amount_micro), 0)::bigint AS micro FROM holds WHERE key_id = ${keyId}`;
      return row?.micro ?? 0;
    },

    async balance(payer) {
      const id = await accounts.of(payer);
      const [row] = await sql<{ balance_micro: number; held_micro: number }[]>`
        SELECT balance_micro, held_micro FROM accounts WHERE id = ${id}`;
      return { balanceMicro: row?.balance_micro ?? 0, heldMicro: row?.held_micro ?? 0 };
    },
  };
}
