import type { Db } from './database.js';
import type { Accounts } from './accounts.js';
import type { Ledger } from './ledger.js';
import type { BillingLine, Store } from '../types.js';
import { toCheckoutSession, type CheckoutRow } from '../rows.js';


export function createCheckoutRepository(db: Db, ledger: Ledger, accounts: Accounts): Store['checkout'] {
  const insert = db.prepare(
    `INSERT INTO checkout_sessions (id, kind, developer_id, app_uuid, address, credits_micro, amount_usd_cents, description,
       status, success_url, cancel_url, referral, created_at, paid_at, expires_at, price_id, livemode)
     VALUES (@id, @kind, @developerId, @appUuid, @address, @creditsMicro, @amountUsdCents, @description,
       @status, @successUrl, @cancelUrl, @referral, @createdAt, @paidAt, @expiresAt, @priceId, @livemode)`,
  );
  const select = db.prepare<[string], CheckoutRow>('SELECT * FROM checkout_sessions WHERE id = ?');
  const markPaid = db.prepare("UPDATE checkout_sessions SET status = 'complete', paid_at = ? WHERE id = ? AND status = 'open'");
  const markExpired = db.prepare("UPDATE checkout_sessions SET status = 'expired' WHERE id = ? AND status = 'open'");
  // Billing history: checkout sessions, and what subscriptions charged after their checkout.
  const billingLines = `
    SELECT id, kind, description, amount_usd_cents AS amountUsdCents, credits_micro AS creditsMicro, status,
           created_at AS createdAt, paid_at AS paidAt
    FROM checkout_sessions WHERE developer_id = @developerId
    UNION ALL
    SELECT id, 'subscription', description, amount_usd_cents, credits_micro, 'complete', paid_at, paid_at
    FROM subscription_invoices WHERE developer_id = @developerId`;
  const page = db.prepare<[{ developerId: string; limit: number; offset: number }], BillingLine>(
    `${billingLines} ORDER BY createdAt DESC, id DESC LIMIT @limit OFFSET @offset`,
  );
  const count = db.prepare<[{ developerId: string }], { n: number }>(`SELECT COUNT(*) AS n FROM (${billingLines})`);
  const selectEvent = db.prepare<[string], { id: string }>('SELECT id FROM webhook_events WHERE id = ?');
  const insertEvent = db.prepare('INSERT OR IGNORE INTO webhook_events (id, type, received_at) VALUES (?, ?, ?)');

  return {
    async create(session) {
      insert.run({ ...session, livemode: session.livemode ? 1 : 0 });
    },
    async get(id) {
      const row = select.get(id);
      return row ? toCheckoutSession(row) : null;
    },
    async complete(id, at) {
      return db.transaction(() => {
        const row = select.get(id);
        if (!row) return 'unknown' as const;
        if (row.status === 'complete') return 'already' as const;
        if (markPaid.run(at, id).changes !== 1) return 'not_open' as const;
        // A subscription's credits come with its invoices, period by period, not with its checkout.
        if (row.kind === 'subscription') return 'completed' as const;
        // Test mode pays play money into the test balance; live money never mixes with it.
        const test = row.livemode === 0;
        const account = accounts.of(
          row.address === null ? { kind: 'app', appUuid: row.app_uuid, test } : { kind: 'user', appUuid: row.app_uuid, address: row.address, test },
        );
        // The session id is the grant's idempotency key: a session credits once, ever.
        ledger.post(account, {
          amountMicro: row.credits_micro,
          kind: test ? 'test_purchase' : row.kind,
          idempotencyKey: `checkout:${id}`,
          reference: id,
          at,
        });
        return 'completed' as const;
      })();
    },
    async expire(id) {
      return markExpired.run(id).changes === 1;
    },
    async listForDeveloper(developerId, { limit, offset }) {
      return { items: page.all({ developerId, limit, offset }), total: count.get({ developerId })?.n ?? 0 };
    },
    async eventSeen(id) {
      return selectEvent.get(id) !== undefined;
    },
    async recordEvent(id, type, at) {
      return insertEvent.run(id, type, at).changes === 1;
    },
  };
}
