import type { Tx } from './database.js';
import { BalanceLimitError, InsufficientFundsError, type Grant } from '../types.js';

/**
 * Balance moves, always with their ledger entry, inside the caller's transaction. The account row
 * is locked first, so moves of one account from any number of instances happen one after another
 * and each sees the balance, the holds and the idempotency keys the previous one left; the CHECKs
 * on accounts make an overdraft impossible even if a caller forgot to check first.
 */
export function createLedger() {
  return {
    /**
     * Moves `grant.amountMicro` (negative to take) into the account. Returns false, changing
     * nothing, when this idempotency key has already moved this account. A debit may take only
     * what requests in flight do not hold.
     */
    async post(tx: Tx, accountId: number, grant: Grant): Promise<boolean> {
      const [account] = await tx<{ balance_micro: number; held_micro: number }[]>`
        SELECT balance_micro, held_micro FROM accounts WHERE id = ${accountId} FOR UPDATE`;
      if (!account) throw new Error(`no account ${accountId}`);
      const [seen] = await tx`SELECT 1 FROM ledger_entries WHERE idempotency_key = ${grant.idempotencyKey} AND account_id = ${accountId}`;
      if (seen) return false;
      const available = account.balance_micro - (grant.amountMicro < 0 ? account.held_micro : 0);
      if (available + grant.amountMicro < 0) throw new InsufficientFundsError(available, -grant.amountMicro);
      if (account.balance_micro + grant.amountMicro > Number.MAX_SAFE_INTEGER) throw new BalanceLimitError(accountId);
      await tx`
        WITH moved AS (
          UPDATE accounts SET balance_micro = balance_micro + ${grant.amountMicro} WHERE id = ${accountId} RETURNING balance_micro
        )
        INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, reference, created_at)
        SELECT ${accountId}, ${grant.amountMicro}, balance_micro, ${grant.kind}, ${grant.idempotencyKey}, ${grant.reference ?? null}, ${grant.at}
        FROM moved`;
      return true;
    },

    async balanceOf(tx: Tx, accountId: number): Promise<number> {
      const [row] = await tx<{ balance_micro: number }[]>`SELECT balance_micro FROM accounts WHERE id = ${accountId}`;
      return row?.balance_micro ?? 0;
    },

    /** A new empty account (live unless `test`). */
    async openAccount(tx: Tx, test = false): Promise<number> {
      const [row] = await tx<{ id: number }[]>`INSERT INTO accounts (test) VALUES (${test}) RETURNING id`;
      if (!row) throw new Error('no account id returned');
      return row.id;
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
