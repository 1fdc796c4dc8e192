import type { Accounts } from './accounts.js';
import type { Sql } from './database.js';
import type { Ledger } from './ledger.js';
import { UPGRADE_GRANT, type BillingLine, type CheckoutSessionRecord, type Payer, type Store } from '../types.js';
import { toCheckoutSession, type CheckoutRow } from '../rows.js';


/** Whose balance a session credits: test mode pays play money into the test balance. */
const payerOf = (row: CheckoutRow): Payer =>
  row.address === null
    ? { kind: 'app', appUuid: row.app_uuid, test: !row.livemode }
    : { kind: 'user', appUuid: row.app_uuid, address: row.address, test: !row.livemode };

export function createCheckoutRepository(sql: Sql, ledger: Ledger, accounts: Accounts): Store['checkout'] {
  // Billing history: checkout sessions, and what subscriptions charged after their checkout.
  // Billing history of one mode: checkout sessions, and what subscriptions charged after their
  // checkout (an invoice has its subscription's mode).
  const billingLines = (developerId: string, livemode: boolean) => sql`
    SELECT id, kind, description, amount_usd_cents AS "amountUsdCents", credits_micro AS "creditsMicro", status,
           created_at AS "createdAt", paid_at AS "paidAt"
    FROM checkout_sessions WHERE developer_id = ${developerId} AND livemode = ${livemode}
    UNION ALL
    SELECT i.id, 'subscription', i.description, i.amount_usd_cents, i.credits_micro, 'complete', i.paid_at, i.paid_at
    FROM subscription_invoices i JOIN subscriptions s ON s.id = i.subscription_id
    WHERE i.developer_id = ${developerId} AND s.livemode = ${livemode}`;

  return {
    async create(session) {
      await sql`
        INSERT INTO checkout_sessions (id, kind, developer_id, app_uuid, address, credits_micro, amount_usd_cents, description,
          status, success_url, cancel_url, referral, created_at, paid_at, expires_at, price_id, livemode)
        VALUES (${session.id}, ${session.kind}, ${session.developerId}, ${session.appUuid}, ${session.address},
          ${session.creditsMicro}, ${session.amountUsdCents}, ${session.description}, ${session.status},
          ${session.successUrl}, ${session.cancelUrl}, ${session.referral}, ${session.createdAt}, ${session.paidAt},
          ${session.expiresAt}, ${session.priceId}, ${session.livemode})`;
    },

    async get(id) {
      const [row] = await sql<CheckoutRow[]>`SELECT * FROM checkout_sessions WHERE id = ${id}`;
      return row ? toCheckoutSession(row) : null;
    },

    async complete(id, at) {
      const [first] = await sql<CheckoutRow[]>`SELECT * FROM checkout_sessions WHERE id = ${id}`;
      if (!first) return 'unknown';
      // Who is credited never changes, so the account is found before the transaction (and may be
      // opened there, for a first test purchase). A subscription's credits come with its invoices,
      // period by period, not with its checkout; a session no longer open credits nobody.
      const credits = first.kind !== 'subscription' && first.status === 'open';
      const account = credits ? await accounts.of(payerOf(first)) : null;
      return sql.begin(async (tx) => {
        // The row lock decides between instances completing the same session: the second waits,
        // then sees it complete.
        const [row] = await tx<{ status: CheckoutSessionRecord['status'] }[]>`
          SELECT status FROM checkout_sessions WHERE id = ${id} FOR UPDATE`;
        if (!row) return 'unknown' as const;
        if (row.status === 'complete') return 'already' as const;
        if (row.status !== 'open') return 'not_open' as const;
        await tx`UPDATE checkout_sessions SET status = 'complete', paid_at = ${at} WHERE id = ${id}`;
        if (account === null) return 'completed' as const;
        // The session id is the grant's idempotency key: a session credits once, ever.
        await ledger.post(tx, account, {
          amountMicro: first.credits_micro,
          kind: first.livemode ? first.kind : 'test_purchase',
          idempotencyKey: `checkout:${id}`,
          reference: id,
          at,
        });
        return 'completed' as const;
      });
    },

    async expire(id) {
      const result = await sql`UPDATE checkout_sessions SET status = 'expired' WHERE id = ${id} AND status = 'open'`;
      return result.count === 1;
    },

    async listForDeveloper(developerId, livemode, { limit, offset }) {
      const items = await sql<BillingLine[]>`
        SELECT * FROM (${billingLines(developerId, livemode)}) AS lines
        ORDER BY "createdAt" DESC, id COLLATE "C" DESC LIMIT ${limit} OFFSET ${offset}`;
      const [count] = await sql<{ n: number }[]>`SELECT COUNT(*) AS n FROM (${billingLines(developerId, livemode)}) AS lines`;
      return { items: [...items], total: count?.n ?? 0 };
    },

    async recordPaidUpgrade(invoice, payer) {
      if (invoice.creditsMicro <= 0) throw new Error(`upgrade invoice ${invoice.id} grants no credits`);
      const account = await accounts.of(payer);
      return sql.begin(async (tx) => {
        // The charge; or, when the processor's report recorded it first (without credits), the credits on it.
        await tx`
          INSERT INTO subscription_invoices (id, subscription_id, developer_id, amount_usd_cents, credits_micro, description, paid_at)
          VALUES (${invoice.id}, ${invoice.subscriptionId}, ${invoice.developerId}, ${invoice.amountUsdCents},
            ${invoice.creditsMicro}, ${invoice.description}, ${invoice.paidAt})
          ON CONFLICT (id) DO UPDATE SET credits_micro = EXCLUDED.credits_micro, description = EXCLUDED.description
          WHERE subscription_invoices.credits_micro = 0`;
        // The invoice id is the grant's idempotency key and its reference: one grant per charge, tied to it.
        return ledger.post(tx, account, {
          amountMicro: invoice.creditsMicro,
          kind: UPGRADE_GRANT,
          idempotencyKey: `invoice:${invoice.id}`,
          reference: invoice.id,
          at: invoice.paidAt,
        });
      });
    },

    async upgradeGrantsWithoutCharge() {
      const rows = await sql<{ entryId: number; amountMicro: number; reference: string | null }[]>`
        SELECT e.id AS "entryId", e.amount_micro AS "amountMicro", e.reference
        FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
        LEFT JOIN subscription_invoices i ON i.id = e.reference
        WHERE NOT a.test AND e.kind = ${UPGRADE_GRANT} AND e.id > (SELECT last_entry_id FROM upgrade_grant_baseline)
          AND (i.id IS NULL OR i.amount_usd_cents <= 0 OR i.credits_micro <> e.amount_micro)
        ORDER BY e.id`;
      return rows.map((row) => ({ ...row }));
    },

    async eventSeen(id) {
      const [row] = await sql`SELECT 1 FROM webhook_events WHERE id = ${id}`;
      return row !== undefined;
    },

    async recordEvent(id, type, at) {
      // Of two instances receiving the same event, the insert that loses the race changes nothing.
      const result = await sql`INSERT INTO webhook_events (id, type, received_at) VALUES (${id}, ${type}, ${at}) ON CONFLICT (id) DO NOTHING`;
      return result.count === 1;
    },
  };
}
