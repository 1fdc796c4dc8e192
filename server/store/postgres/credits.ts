import type { Accounts } from './accounts.js';
import type { Query, Sql } from './database.js';
import type { Ledger } from './ledger.js';
import type { Store } from '../types.js';

type Mismatch = { accountId: number; balanceMicro: number; ledgerMicro: number };

/**
 * Every account whose balance is not the sum of its entries. The comparison is made on exact
 * numerics in SQL; the sum comes back as text, since a broken account may sum past 2^53.
 */
async function mismatches(q: Query): Promise<Mismatch[]> {
  const rows = await q<{ accountId: number; balanceMicro: number; ledgerMicro: string }[]>`
    SELECT a.id AS "accountId", a.balance_micro AS "balanceMicro", COALESCE(SUM(e.amount_micro), 0)::text AS "ledgerMicro"
    FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
    GROUP BY a.id HAVING a.balance_micro <> COALESCE(SUM(e.amount_micro), 0)
    ORDER BY a.id`;
  return rows.map((row) => ({ accountId: row.accountId, balanceMicro: row.balanceMicro, ledgerMicro: Number(row.ledgerMicro) }));
}

export function createCreditsRepository(sql: Sql, ledger: Ledger, accounts: Accounts): Store['credits'] {
  return {
    async grant(payer, grant) {
      const id = await accounts.of(payer);
      // ledger.post locks the account before it looks for the key: of two instances granting the
      // same key at once, the second waits, then finds the key and moves nothing.
      return sql.begin(async (tx) => {
        const granted = await ledger.post(tx, id, grant);
        return { granted, balanceMicro: await ledger.balanceOf(tx, id) };
      });
    },

    async transfer(from, to, grant) {
      const target = await accounts.of(to);
      const sponsor = await accounts.of(from);
      return sql.begin(async (tx) => {
        // Both accounts locked up front, in id order: the key check below then holds until commit,
        // and two transfers between the same accounts in opposite directions cannot deadlock.
        await tx`SELECT id FROM accounts WHERE id IN (${sponsor}, ${target}) ORDER BY id FOR UPDATE`;
        const [seen] = await tx`SELECT 1 FROM ledger_entries WHERE idempotency_key = ${grant.idempotencyKey} AND account_id = ${target}`;
        if (seen) return { granted: false, balanceMicro: await ledger.balanceOf(tx, target) };
        // The sponsor's debit first: it throws InsufficientFundsError when the sponsor cannot pay.
        // Its key names the receiving account: one sponsor pays the same reward to many, and an
        // app may be both a sponsor and a claimant of the same kind of reward.
        await ledger.post(tx, sponsor, {
          ...grant,
          amountMicro: -grant.amountMicro,
          idempotencyKey: `${grant.idempotencyKey}→${target}`,
          reference: grant.reference ?? `account ${target}`,
        });
        await ledger.post(tx, target, grant);
        return { granted: true, balanceMicro: await ledger.balanceOf(tx, target) };
      });
    },

    async used(payer, keys) {
      if (keys.length === 0) return new Set<string>();
      const id = await accounts.of(payer);
      const rows = await sql<{ idempotency_key: string }[]>`
        SELECT idempotency_key FROM ledger_entries WHERE account_id = ${id} AND idempotency_key = ANY(${keys})`;
      return new Set(rows.map((row) => row.idempotency_key));
    },

    async highestReference(payer, kind) {
      const id = await accounts.of(payer);
      // Only numeric references count: PostgreSQL's cast, unlike SQLite's, fails on any other text.
      const [row] = await sql<{ top: number | null }[]>`
        SELECT MAX(CASE WHEN reference ~ '^[0-9]+$' THEN reference::numeric END)::float8 AS top
        FROM ledger_entries WHERE account_id = ${id} AND kind = ${kind}`;
      return row?.top ?? 0;
    },

    async check() {
      return mismatches(sql);
    },

    async audit() {
      // One snapshot for all four reads, so the totals compared were taken at the same moment.
      return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
        const found = await mismatches(tx);
        // Live money only (test accounts hold play money), summed per kind, and apart for the
        // entries written before every credit needed a source. Sums read as text, then BigInt.
        const byKind = await tx<{ kind: string; legacy: boolean; total: string }[]>`
          SELECT e.kind, (e.id <= (SELECT last_entry_id FROM ledger_baseline)) AS legacy, SUM(e.amount_micro)::text AS total
          FROM ledger_entries e JOIN accounts a ON a.id = e.account_id WHERE NOT a.test
          GROUP BY e.kind, legacy ORDER BY e.kind COLLATE "C", legacy`;
        const [live] = await tx<{ total: string | null }[]>`SELECT SUM(balance_micro)::text AS total FROM accounts WHERE NOT test`;
        const shortfalls = await tx<{ requestId: string; appUuid: string; address: string | null; costMicro: number; chargedMicro: number; at: string }[]>`
          SELECT request_id AS "requestId", app_uuid AS "appUuid", address, cost_micro AS "costMicro",
                 charged_micro AS "chargedMicro", created_at AS at
          FROM usage_events WHERE charged_micro < cost_micro ORDER BY id`;
        return {
          mismatches: found,
          byKind: byKind.map((row) => ({ kind: row.kind, legacy: row.legacy, totalMicro: BigInt(row.total) })),
          liveBalanceMicro: BigInt(live?.total ?? '0'),
          shortfalls: shortfalls.map((row) => ({ ...row })),
        };
      });
    },
  };
}
