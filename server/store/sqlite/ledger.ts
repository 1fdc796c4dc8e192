import type { Db } from './database.js';
import type { Holds } from './holds.js';
import { flag } from '../rows.js';
import { BalanceLimitError, InsufficientFundsError, type Grant } from '../types.js';

/**
 * Balance moves, always with their ledger entry. These functions run inside the caller's
 * transaction; the `CHECK (balance_micro >= 0)` on accounts makes an overdraft impossible even if
 * a caller forgot to check first.
 */
export function createLedger(db: Db, holds: Holds) {
  const insertAccount = db.prepare<[0 | 1]>('INSERT INTO accounts (test) VALUES (?)');
  const selectBalance = db.prepare<[number], { balance_micro: number }>('SELECT balance_micro FROM accounts WHERE id = ?');
  const entryExists = db.prepare<[string, number], { id: number }>(
    'SELECT id FROM ledger_entries WHERE idempotency_key = ? AND account_id = ?',
  );
  const moveBalance = db.prepare<[number, number], { balance_micro: number }>(
    'UPDATE accounts SET balance_micro = balance_micro + ? WHERE id = ? RETURNING balance_micro',
  );
  const insertEntry = db.prepare(
    `INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, reference, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );

  function balanceOf(accountId: number): number {
    return selectBalance.get(accountId)?.balance_micro ?? 0;
  }

  return {
    /**
     * A charge metering has sized to what the balance allows beside the other holds, for a
     * request whose usage row it has just written (which keeps it to one): the balance and its
     * ledger entry, without post's checks.
     */
    charge(accountId: number, grant: Grant): void {
      const after = moveBalance.get(grant.amountMicro, accountId);
      if (!after) throw new Error(`no account ${accountId}`);
      insertEntry.run(accountId, grant.amountMicro, after.balance_micro, grant.kind, grant.idempotencyKey, grant.reference ?? null, grant.at);
    },

    /** A new empty account (live unless `test`: play money, never summed with live money). */
    openAccount(test = false): number {
      return Number(insertAccount.run(flag(test)).lastInsertRowid);
    },

    balanceOf,

    /**
     * Moves `grant.amountMicro` (negative to take) into the account. Returns false, changing
     * nothing, when this idempotency key has already moved this account. A debit may take only
     * what requests in flight do not hold: a top-up must not spend what an answer will cost.
     */
    post(accountId: number, grant: Grant): boolean {
      if (entryExists.get(grant.idempotencyKey, accountId)) return false;
      const available = balanceOf(accountId) - (grant.amountMicro < 0 ? holds.of(accountId) : 0);
      if (available + grant.amountMicro < 0) throw new InsufficientFundsError(available, -grant.amountMicro);
      if (balanceOf(accountId) + grant.amountMicro > Number.MAX_SAFE_INTEGER) throw new BalanceLimitError(accountId);
      const after = moveBalance.get(grant.amountMicro, accountId);
      if (!after) throw new Error(`no account ${accountId}`);
      insertEntry.run(
        accountId,
        grant.amountMicro,
        after.balance_micro,
        grant.kind,
        grant.idempotencyKey,
        grant.reference ?? null,
        grant.at,
      );
      return true;
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
