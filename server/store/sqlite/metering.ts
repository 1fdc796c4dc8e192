import type { Db } from './database.js';
import type { Accounts } from './accounts.js';
import { createGroupUsageWriter } from './usage-rows.js';
import type { Holds } from './holds.js';
import type { Ledger } from './ledger.js';
import { flag } from '../rows.js';
import { budgetFits, budgetFound, USER_BUDGET_SELECT, userBudgetLimit, withHold, type UserBudgetRow } from '../budget-standing.js';
import type { SyncRateCounters } from './rate-counters.js';
import { rateAllows, type BudgetChecks, type BudgetWindows, type HeldBudgets, type HoldResult, type Payer, type RateCount, type Store, type TokenCount, type UsageEvent } from '../types.js';

interface PendingSettle {
  accountId: number;
  heldMicro: number;
  costMicro: number;
  usage: UsageEvent;
  windows: BudgetWindows | undefined;
  tokens: TokenCount | undefined;
  /** Set once its hold is released: a group whose COMMIT fails must not release it again. */
  holdEnded?: boolean;
  resolve(result: { chargedMicro: number }): void;
  reject(error: unknown): void;
}

/** What requests in flight hold per subject (a capped user, a budgeted key), released per request. */
function createRequestHolds() {
  const pending = new Map<string, number>();
  const requests = new Map<string, { subject: string; amount: number }>();
  return {
    of: (subject: string) => pending.get(subject) ?? 0,
    add(subject: string, requestId: string, amount: number) {
      pending.set(subject, (pending.get(subject) ?? 0) + amount);
      requests.set(requestId, { subject, amount });
    },
    release(requestId: string) {
      const hold = requests.get(requestId);
      if (!hold) return;
      requests.delete(requestId);
      const left = (pending.get(hold.subject) ?? 0) - hold.amount;
      if (left > 0) pending.set(hold.subject, left);
      else pending.delete(hold.subject);
    },
  };
}

/**
 * Metering: holds in memory (see holds.ts), settlements in the database. Settlements that arrive
 * together are written in one transaction (group commit: one write-ahead-log commit for many
 * requests), each inside its own savepoint so that one failure cannot undo another; every
 * caller's promise resolves only after the commit.
 */
export function createMeteringRepository(
  db: Db,
  ledger: Ledger,
  holds: Holds,
  accounts: Accounts,
  rateCounters: SyncRateCounters,
  /** Told of each settlement group committed (the checkpointing counts them). */
  groupCommitted: () => void = () => {},
): Store['metering'] & { flushPending(): void } {
  const readBalance = db.prepare<[number], { balance_micro: number }>('SELECT balance_micro FROM accounts WHERE id = ?');
  // A charge is its user's spend in the request's own mode: a sandbox user's play money never
  // counts against the live user of the same address (nor theirs against the sandbox user).
  const addSpend = db.prepare('UPDATE app_users SET spent_micro = spent_micro + ? WHERE app_uuid = ? AND livemode = ? AND address = ?');
  const userLimit = db.prepare<[string, 0 | 1, string], { credit_limit_micro: number | null; spent_micro: number }>(
    'SELECT credit_limit_micro, spent_micro FROM app_users WHERE app_uuid = ? AND livemode = ? AND address = ?',
  );
  // What each end user holds in requests still running (app/address →
  // micro-credits), and which request holds for whom: spend is written only at settlement.
  const userPending = createRequestHolds();
  const userSubject = (appUuid: string, address: string) => `${appUuid}/${address}`;
  const usageRows = createGroupUsageWriter(db);

  // Key budgets: the window and what was settled in it are in the key's row; what requests in
  // flight hold for a key is here, as the balance holds are (one process, synchronous steps).
  const keyBudgetRow = db.prepare<[string], { budget_credits_micro: number | null; budget_period: string | null; budget_window_start: string | null; budget_spent_micro: number }>(
    'SELECT budget_credits_micro, budget_period, budget_window_start, budget_spent_micro FROM api_keys WHERE key_id = ?',
  );
  const startKeyWindow = db.prepare('UPDATE api_keys SET budget_window_start = ?, budget_spent_micro = 0 WHERE key_id = ?');
  const addKeySpend = db.prepare('UPDATE api_keys SET budget_spent_micro = budget_spent_micro + ? WHERE key_id = ? AND budget_window_start = ?');
  const keyPending = createRequestHolds();

  // End-user budgets (live users: test mode holds nothing): the user's own budget or their app's
  // default, their window in their row, what their requests in flight hold in userPending.
  const userBudgetRow = db.prepare<[string, string], UserBudgetRow>(
    `SELECT ${USER_BUDGET_SELECT} FROM app_users u JOIN apps a ON a.app_uuid = u.app_uuid
     WHERE u.app_uuid = ? AND u.livemode = 1 AND u.address = ?`,
  );
  const startUserWindow = db.prepare('UPDATE app_users SET budget_window_start = ?, budget_spent_micro = 0 WHERE app_uuid = ? AND livemode = 1 AND address = ?');
  const addUserBudgetSpend = db.prepare(
    'UPDATE app_users SET budget_spent_micro = budget_spent_micro + ? WHERE app_uuid = ? AND livemode = 1 AND address = ? AND budget_window_start = ?',
  );

  /** The key's budget as a hold now finds it; null when the key has none. */
  const keyStanding = (keyId: string, windowAt: BudgetChecks['windowAt']) => {
    const row = keyBudgetRow.get(keyId);
    if (!row || row.budget_credits_micro === null || row.budget_period === null) return null;
    const limit = { limitMicro: row.budget_credits_micro, period: row.budget_period };
    return budgetFound(limit, { windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro }, keyPending.of(keyId), windowAt);
  };

  /** The user's budget in force as a hold now finds it; null when none applies. */
  const userStanding = (user: { appUuid: string; address: string }, windowAt: BudgetChecks['windowAt']) => {
    const row = userBudgetRow.get(user.appUuid, user.address);
    if (!row) return null;
    const stored = { windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro };
    return budgetFound(userBudgetLimit(row), stored, userPending.of(userSubject(user.appUuid, user.address)), windowAt);
  };

  const accountOf = (payer: Payer): number => accounts.of(payer);
  const balanceOf = (accountId: number) => readBalance.get(accountId)?.balance_micro ?? 0;

  /** Ends a settlement's hold, once whatever happens after (a savepoint or the whole group rolled back). */
  const endHold = (item: PendingSettle) => {
    if (item.holdEnded) return;
    item.holdEnded = true;
    holds.release(item.accountId, item.heldMicro);
  };

  const storedCharge = db.prepare<[string], { charged_micro: number }>('SELECT charged_micro FROM usage_events WHERE request_id = ?');

  /**
   * One settlement: charge what the balance allows (never below zero), usage row, user spend.
   * The usage row is written first: a request that has one was settled already, and a second
   * settlement of it moves nothing and answers the stored charge.
   */
  const settleOne = db.transaction((item: PendingSettle): number => {
    // What the balance allows beside the other holds (this request's own is ending).
    const available = Math.max(0, balanceOf(item.accountId) - Math.max(0, holds.of(item.accountId) - item.heldMicro));
    const charged = Math.min(item.costMicro, available);
    // Both what it cost and what was charged: a shortfall stays visible (svc serve --check).
    let rowId: number | null;
    try {
      rowId = usageRows.insert(item.usage, item.costMicro, charged);
    } catch (error) {
      endHold(item);
      throw error;
    }
    if (rowId === null) return storedCharge.get(item.usage.requestId)?.charged_micro ?? 0;
    // The caller's tokens count against its rate limit with the settlement (in memory: one process).
    if (item.tokens) rateCounters.addNow(item.tokens.key, item.tokens.windowStart, item.tokens.tokens);
    // The hold ends as its charge is written, not before: until then no other request may
    // reserve the credits this charge is about to take.
    endHold(item);
    if (charged > 0) {
      ledger.charge(item.accountId, {
        amountMicro: -charged,
        kind: 'inference',
        idempotencyKey: `usage:${item.usage.requestId}`,
        reference: `${item.usage.provider}/${item.usage.model}`,
        at: item.usage.at,
      });
      if (item.usage.address) addSpend.run(charged, item.usage.appUuid, flag(item.usage.livemode), item.usage.address);
      const { key, user } = item.windows ?? {};
      if (key !== undefined && item.usage.keyId) addKeySpend.run(charged, item.usage.keyId, key);
      if (user !== undefined && item.usage.address) addUserBudgetSpend.run(charged, item.usage.appUuid, item.usage.address, user);
    }
    return charged;
  });

  type Settled = { ok: true; charged: number } | { ok: false; error: unknown };
  /** One group in one transaction (made once: better-sqlite3 builds a wrapper per call of db.transaction). */
  const settleGroup = db.transaction((batch: PendingSettle[], results: Settled[]) => {
    for (const item of batch) {
      // A nested transaction is a savepoint: a failure rolls back this item only.
      try {
        results.push({ ok: true, charged: settleOne(item) });
      } catch (error) {
        results.push({ ok: false, error });
      }
    }
  });

  let queue: PendingSettle[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    const results: Settled[] = [];
    try {
      settleGroup(batch, results);
    } catch (error) {
      // The whole group rolled back (its COMMIT failed): each request ends with this error, and
      // its hold ends once — most were released by settleOne already, before the COMMIT.
      batch.forEach((item) => {
        endHold(item);
        item.reject(error);
      });
      return;
    }
    groupCommitted();
    batch.forEach((item, i) => {
      const result = results[i];
      if (result?.ok) item.resolve({ chargedMicro: result.charged });
      else item.reject(result?.error);
    });
  };

  /** The request counted against its caller's limits (in memory: one process), and where the caller stands. */
  const countRate = (rate: RateCount) => ({
    requests: rateCounters.addNow(rate.requestKey, rate.windowStart, 1),
    tokens: rateCounters.getNow(rate.tokenKey, rate.windowStart),
  });

  return {
    async hold(payer, amountMicro, requestId, capUser, budgets, rate) {
      if (!rate) return holdNow(payer, amountMicro, requestId, capUser, budgets);
      const standing = countRate(rate);
      if (!rateAllows(rate, standing)) return { ok: false as const, rateLimited: true as const, rate: standing };
      // Added to the answer rather than spread into a copy: a spread that adds a field is slow in V8.
      return Object.assign(holdNow(payer, amountMicro, requestId, capUser, budgets), { rate: standing });
    },

    settle(payer, heldMicro, costMicro, usage, windows, tokens) {
      const accountId = accountOf(payer);
      const settled = new Promise<{ chargedMicro: number }>((resolve, reject) => {
        if (queue.length === 0) setImmediate(flush);
        queue.push({ accountId, heldMicro, costMicro, usage, windows, tokens, resolve, reject });
      });
      // Only once the spend is written does the user's (or key's) hold stop counting against their limit.
      return settled.finally(() => {
        userPending.release(usage.requestId);
        keyPending.release(usage.requestId);
      });
    },

    async keyHeld(keyId) {
      return keyPending.of(keyId);
    },

    async balance(payer) {
      const id = accountOf(payer);
      return { balanceMicro: balanceOf(id), heldMicro: holds.of(id) };
    },

    /** Writes what is queued now (at close, so nothing settled is lost). */
    flushPending() {
      if (queue.length > 0) flush();
    },
  };

  /** Every check and the reservation in one synchronous step: no other hold can interleave. */
  function holdNow(payer: Payer, amountMicro: number, requestId: string, capUser?: string, budgets?: BudgetChecks): HoldResult {
    const key = budgets?.keyId ? keyStanding(budgets.keyId, budgets.windowAt) : null;
    if (key && !budgetFits(key, amountMicro)) return { ok: false as const, budgetExceeded: { kind: 'key' as const, ...key.standing } };
    const user = budgets?.user ? userStanding(budgets.user, budgets.windowAt) : null;
    if (user && !budgetFits(user, amountMicro)) return { ok: false as const, budgetExceeded: { kind: 'user' as const, ...user.standing } };
    const pooled = capUser !== undefined && payer.kind === 'app' ? { appUuid: payer.appUuid, address: capUser, live: !payer.test } : null;
    // The end user the request is for: their holds count against their limit and their budget.
    const spender = budgets?.user ?? pooled;
    const subject = spender ? userSubject(spender.appUuid, spender.address) : null;
    const cap = pooled ? userLimit.get(pooled.appUuid, flag(pooled.live), pooled.address) : undefined;
    if (cap && cap.credit_limit_micro !== null && subject !== null) {
      const pending = userPending.of(subject);
      if (cap.spent_micro + pending + amountMicro > cap.credit_limit_micro) {
        return { ok: false as const, userLimit: { spentMicro: cap.spent_micro, pendingMicro: pending, limitMicro: cap.credit_limit_micro } };
      }
    }
    const id = accountOf(payer);
    const available = Math.max(0, balanceOf(id) - holds.of(id));
    if (amountMicro > available) return { ok: false as const, availableMicro: available };
    if (amountMicro > 0) holds.add(id, amountMicro);
    if (subject !== null && amountMicro > 0) userPending.add(subject, requestId, amountMicro);
    const held: HeldBudgets = {};
    if (key && budgets?.keyId) {
      if (key.window.rolled) startKeyWindow.run(key.window.start, budgets.keyId);
      if (amountMicro > 0) keyPending.add(budgets.keyId, requestId, amountMicro);
      held.key = withHold(key, amountMicro);
    }
    if (user && budgets?.user) {
      if (user.window.rolled) startUserWindow.run(user.window.start, budgets.user.appUuid, budgets.user.address);
      held.user = withHold(user, amountMicro);
    }
    return key || user ? { ok: true as const, budgets: held } : { ok: true as const };
  }
}
