import type { Db } from './database.js';
import type { Accounts } from './accounts.js';
import type { Ledger } from './ledger.js';
import { UPGRADE_GRANT, type BillingLine, type Store } from '../types.js';
import { flag, toCheckoutSession, type CheckoutRow } from '../rows.js';


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
  // Billing history of one mode: checkout sessions, and what subscriptions charged after their
  // checkout (an invoice has its subscription's mode).
  const billingLines = `
    SELECT id, kind, description, amount_usd_cents AS amountUsdCents, credits_micro AS creditsMicro, status,
           created_at AS createdAt, paid_at AS paidAt
    FROM checkout_sessions WHERE developer_id = @developerId AND livemode = @livemode
    UNION ALL
    SELECT i.id, 'subscription', i.description, i.amount_usd_cents, i.credits_micro, 'complete', i.paid_at, i.paid_at
    FROM subscription_invoices i JOIN subscriptions s ON s.id = i.subscription_id
    WHERE i.developer_id = @developerId AND s.livemode = @livemode`;
  const page = db.prepare<[{ developerId: string; livemode: 0 | 1; limit: number; offset: number }], BillingLine>(
    `${billingLines} ORDER BY createdAt DESC, id DESC LIMIT @limit OFFSET @offset`,
  );
  const count = db.prepare<[{ developerId: string; livemode: 0 | 1 }], { n: number }>(`SELECT COUNT(*) AS n FROM (${billingLines})`);
  // An upgrade's charge; or, when the processor's report recorded it first (without credits), the credits on it.
  const recordUpgradeCharge = db.prepare(
    `INSERT INTO subscription_invoices (id, subscription_id, developer_id, amount_usd_cents, credits_micro, description, paid_at)
     VALUES (@id, @subscriptionId, @developerId, @amountUsdCents, @creditsMicro, @description, @paidAt)
     ON CONFLICT (id) DO UPDATE SET credits_micro = excluded.credits_micro, description = excluded.description
     WHERE subscription_invoices.credits_micro = 0`,
  );
  const grantsWithoutCharge = db.prepare<[string], { entryId: number; amountMicro: number; reference: string | null }>(
    `SELECT e.id AS entryId, e.amount_micro AS amountMicro, e.reference
     FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
     LEFT JOIN subscription_invoices i ON i.id = e.reference
     WHERE a.test = 0 AND e.kind = ? AND e.id > (SELECT last_entry_id FROM upgrade_grant_baseline)
       AND (i.id IS NULL OR i.amount_usd_cents <= 0 OR i.credits_micro <> e.amount_micro)
     ORDER BY e.id`,
  );
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
    async listForDeveloper(developerId, livemode, { limit, offset }) {
      const mode = { developerId, livemode: flag(livemode) };
      return { items: page.all({ ...mode, limit, offset }), total: count.get(mode)?.n ?? 0 };
    },
    async recordPaidUpgrade(invoice, payer) {
      if (invoice.creditsMicro <= 0) throw new Error(`upgrade invoice ${invoice.id} grants no credits`);
      return db.transaction(() => {
        recordUpgradeCharge.run(invoice);
        // The invoice id is the grant's idempotency key and its reference: one grant per charge, tied to it.
        return ledger.post(accounts.of(payer), {
          amountMicro: invoice.creditsMicro,
          kind: UPGRADE_GRANT,
          idempotencyKey: `invoice:${invoice.id}`,
          reference: invoice.id,
          at: invoice.paidAt,
        });
      })();
    },
    async upgradeGrantsWithoutCharge() {
      return grantsWithoutCharge.all(UPGRADE_GRANT);
    },
    async eventSeen(id) {
      return selectEvent.get(id) !== undefined;
    },
    async recordEvent(id, type, at) {
      return insertEvent.run(id, type, at).changes === 1;
    },
  };
}
