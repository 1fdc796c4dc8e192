import type { Accounts } from './accounts.js';
import type { Sql } from './database.js';
import type { Ledger } from './ledger.js';
import type { BillingLine, CheckoutSessionRecord, Payer, Store } from '../types.js';
import { toCheckoutSession, type CheckoutRow } from '../rows.js';


/** Whose balance a session credits: test mode pays play money into the test balance. */
const payerOf = (row: CheckoutRow): Payer =>
  row.address === null
    ? { kind: 'app', appUuid: row.app_uuid, test: !row.livemode }
    : { kind: 'user', appUuid: row.app_uuid, address: row.address, test: !row.livemode };

export function createCheckoutRepository(sql: Sql, ledger: Ledger, accounts: Accounts): Store['checkout'] {
  // Billing history: checkout sessions, and what subscriptions charged after their checkout.
  const billingLines = (developerId: string) => sql`
    SELECT id, kind, description, amount_usd_cents AS "amountUsdCents", credits_micro AS "creditsMicro", status,
           created_at AS "createdAt", paid_at AS "paidAt"
    FROM checkout_sessions WHERE developer_id = ${developerId}
    UNION ALL
    SELECT id, 'subscription', description, amount_usd_cents, credits_micro, 'complete', paid_at, paid_at
    FROM subscription_invoices WHERE developer_id = ${developerId}`;

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

    async listForDeveloper(developerId, { limit, offset }) {
      const items = await sql<BillingLine[]>`
        SELECT * FROM (${billingLines(developerId)}) AS lines
        ORDER BY "createdAt" DESC, id COLLATE "C" DESC LIMIT ${limit} OFFSET ${offset}`;
      const [count] = await sql<{ n: number }[]>`SELECT COUNT(*) AS n FROM (${billingLines(developerId)}) AS lines`;
      return { items: [...items], total: count?.n ?? 0 };
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
