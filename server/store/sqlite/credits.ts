import type { Accounts } from './accounts.js';
import type { Db } from './database.js';
import type { Ledger } from './ledger.js';
import type { Store } from '../types.js';

export function createCreditsRepository(db: Db, ledger: Ledger, accounts: Accounts): Store['credits'] {
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
  // Live money only (test accounts hold play money), summed per kind, and apart for the entries
  // written before every credit needed a source (migration 12). Read as BigInt: no total rounds.
  const byKind = db
    .prepare<[], { kind: string; legacy: bigint; total: bigint }>(
      `SELECT e.kind AS kind, (e.id <= (SELECT last_entry_id FROM ledger_baseline)) AS legacy, SUM(e.amount_micro) AS total
       FROM ledger_entries e JOIN accounts a ON a.id = e.account_id WHERE a.test = 0
       GROUP BY e.kind, legacy ORDER BY e.kind, legacy`,
    )
    .safeIntegers(true);
  const liveBalance = db
    .prepare<[], { total: bigint | null }>('SELECT SUM(balance_micro) AS total FROM accounts WHERE test = 0')
    .safeIntegers(true);
  const shortfalls = db.prepare<[], { requestId: string; appUuid: string; address: string | null; costMicro: number; chargedMicro: number; at: string }>(
    `SELECT request_id AS requestId, app_uuid AS appUuid, address, cost_micro AS costMicro, charged_micro AS chargedMicro,
       created_at AS at FROM usage_events WHERE charged_micro < cost_micro ORDER BY id`,
  );

  return {
    async grant(payer, grant) {
      return db.transaction(() => {
        const id = accounts.of(payer);
        const granted = ledger.post(id, grant);
        return { granted, balanceMicro: ledger.balanceOf(id) };
      })();
    },
    async transfer(from, to, grant) {
      return db.transaction(() => {
        const target = accounts.of(to);
        if (keyUsed.get(grant.idempotencyKey, target)) return { granted: false, balanceMicro: ledger.balanceOf(target) };
        // The sponsor's debit first: it throws InsufficientFundsError when the sponsor cannot pay.
        // Its key names the receiving account: one sponsor pays the same reward to many, and an
        // app may be both a sponsor and a claimant of the same kind of reward.
        ledger.post(accounts.of(from), {
          ...grant,
          amountMicro: -grant.amountMicro,
          idempotencyKey: `${grant.idempotencyKey}→${target}`,
          reference: grant.reference ?? `account ${target}`,
        });
        ledger.post(target, grant);
        return { granted: true, balanceMicro: ledger.balanceOf(target) };
      })();
    },
    async used(payer, keys) {
      const id = accounts.of(payer);
      return new Set(keys.filter((key) => keyUsed.get(key, id) !== undefined));
    },
    async highestReference(payer, kind) {
      return highest.get(accounts.of(payer), kind)?.top ?? 0;
    },
    async check() {
      return mismatches.all();
    },
    async audit() {
      return {
        mismatches: mismatches.all(),
        byKind: byKind.all().map((row) => ({ kind: row.kind, legacy: row.legacy === 1n, totalMicro: row.total })),
        liveBalanceMicro: liveBalance.get()?.total ?? 0n,
        shortfalls: shortfalls.all(),
      };
    },
  };
}
