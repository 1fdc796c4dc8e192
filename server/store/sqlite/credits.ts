import type { Db } from './database.js';
import type { Ledger } from './ledger.js';
import type { Payer, Store } from '../types.js';

export function createCreditsRepository(db: Db, ledger: Ledger): Store['credits'] {
  const appAccount = db.prepare<[string], { account_id: number }>('SELECT account_id FROM apps WHERE app_uuid = ?');
  const userAccount = db.prepare<[string, string], { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND address = ?',
  );
  // A point lookup on the (idempotency_key, account_id) unique index, however long the ledger.
  const keyUsed = db.prepare<[string, number], { found: number }>(
    'SELECT 1 AS found FROM ledger_entries WHERE idempotency_key = ? AND account_id = ?',
  );
  const highest = db.prepare<[number, string], { top: number | null }>(
    'SELECT MAX(CAST(reference AS INTEGER)) AS top FROM ledger_entries WHERE account_id = ? AND kind = ?',
  );
  // Every account whose balance is not the sum of its entries.
  const mismatches = db.prepare<[], { accountId: number; balanceMicro: number; ledgerMicro: number }>(
    `SELECT a.id AS accountId, a.balance_micro AS balanceMicro, COALESCE(SUM(e.amount_micro), 0) AS ledgerMicro
     FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
     GROUP BY a.id HAVING a.balance_micro <> COALESCE(SUM(e.amount_micro), 0)`,
  );

  const accountOf = (payer: Payer): number => {
    const row = payer.kind === 'app' ? appAccount.get(payer.appUuid) : userAccount.get(payer.appUuid, payer.address);
    if (!row) throw new Error(`no account for ${JSON.stringify(payer)}`);
    return row.account_id;
  };

  return {
    async grant(payer, grant) {
      return db.transaction(() => {
        const id = accountOf(payer);
        const granted = ledger.post(id, grant);
        return { granted, balanceMicro: ledger.balanceOf(id) };
      })();
    },
    async used(payer, keys) {
      const id = accountOf(payer);
      return new Set(keys.filter((key) => keyUsed.get(key, id) !== undefined));
    },
    async highestReference(payer, kind) {
      return highest.get(accountOf(payer), kind)?.top ?? 0;
    },
    async check() {
      return mismatches.all();
    },
  };
}
