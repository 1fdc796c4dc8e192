import type { Db } from './database.js';
import type { Store, SubscriptionRecord } from '../types.js';
import { flag, toSubscription, type SubscriptionRow } from '../rows.js';


const toRow = (record: SubscriptionRecord): SubscriptionRow => ({
  id: record.id,
  developer_id: record.developerId,
  app_uuid: record.appUuid,
  address: record.address,
  customer_id: record.customerId,
  tier: record.tier,
  interval: record.interval,
  status: record.status,
  current_period_start: record.currentPeriodStart,
  current_period_end: record.currentPeriodEnd,
  cancel_at_period_end: record.cancelAtPeriodEnd ? 1 : 0,
  price_id: record.priceId,
  scheduled_tier: record.scheduledDowngrade?.tier ?? null,
  scheduled_interval: record.scheduledDowngrade?.interval ?? null,
  scheduled_price_id: record.scheduledDowngrade?.priceId ?? null,
  state_version: record.stateVersion,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
  livemode: flag(record.livemode),
});

export function createSubscriptionsRepository(db: Db): Store['subscriptions'] {
  const select = db.prepare<[string], SubscriptionRow>('SELECT * FROM subscriptions WHERE id = ?');
  const current = db.prepare<[string, 0 | 1, string], SubscriptionRow>(
    `SELECT * FROM subscriptions WHERE app_uuid = ? AND livemode = ? AND address = ?
     ORDER BY status = 'active' DESC, created_at DESC, id DESC LIMIT 1`,
  );
  const activeForApp = db.prepare<[string], SubscriptionRow>("SELECT * FROM subscriptions WHERE app_uuid = ? AND status = 'active' ORDER BY id");
  // A subject has one active subscription per mode (migration 14).
  const activeOther = db.prepare<[string, 0 | 1, string, string], { id: string }>(
    "SELECT id FROM subscriptions WHERE app_uuid = ? AND livemode = ? AND address = ? AND status = 'active' AND id <> ?",
  );
  const insert = db.prepare(
    `INSERT INTO subscriptions (id, developer_id, app_uuid, address, customer_id, tier, interval, status,
       current_period_start, current_period_end, cancel_at_period_end, price_id, scheduled_tier, scheduled_interval,
       scheduled_price_id, state_version, created_at, updated_at, livemode)
     VALUES (@id, @developer_id, @app_uuid, @address, @customer_id, @tier, @interval, @status,
       @current_period_start, @current_period_end, @cancel_at_period_end, @price_id, @scheduled_tier, @scheduled_interval,
       @scheduled_price_id, @state_version, @created_at, @updated_at, @livemode)`,
  );
  // The processor's state; the scheduled downgrade is ours and survives it (unless canceled).
  const update = db.prepare(
    `UPDATE subscriptions SET customer_id = COALESCE(@customer_id, customer_id), tier = @tier, interval = @interval,
       status = @status, current_period_start = @current_period_start, current_period_end = @current_period_end,
       cancel_at_period_end = @cancel_at_period_end, state_version = @state_version, updated_at = @updated_at,
       price_id = COALESCE(@price_id, price_id),
       scheduled_tier = CASE WHEN @status = 'canceled' THEN NULL ELSE scheduled_tier END,
       scheduled_interval = CASE WHEN @status = 'canceled' THEN NULL ELSE scheduled_interval END,
       scheduled_price_id = CASE WHEN @status = 'canceled' THEN NULL ELSE scheduled_price_id END
     WHERE id = @id`,
  );
  const setDowngrade = db.prepare(
    'UPDATE subscriptions SET scheduled_tier = ?, scheduled_interval = ?, scheduled_price_id = ?, updated_at = ? WHERE id = ?',
  );
  const due = db.prepare<[string, number, number], SubscriptionRow>(
    "SELECT * FROM subscriptions WHERE status = 'active' AND current_period_end <= ? ORDER BY current_period_end, id LIMIT ? OFFSET ?",
  );
  const nextEnd = db.prepare<[string], { at: string | null }>(
    "SELECT MIN(current_period_end) AS at FROM subscriptions WHERE status = 'active' AND current_period_end > ?",
  );
  const insertInvoice = db.prepare(
    `INSERT OR IGNORE INTO subscription_invoices (id, subscription_id, developer_id, amount_usd_cents, credits_micro, description, paid_at)
     VALUES (@id, @subscriptionId, @developerId, @amountUsdCents, @creditsMicro, @description, @paidAt)`,
  );
  const insertPortal = db.prepare(
    'INSERT INTO portal_sessions (id, subscription_id, return_url, expires_at) VALUES (@id, @subscriptionId, @returnUrl, @expiresAt)',
  );
  const selectCard = db.prepare<[string], { card: string }>('SELECT card FROM sandbox_cards WHERE customer_id = ?');
  const upsertCard = db.prepare('INSERT INTO sandbox_cards (customer_id, card) VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET card = excluded.card');
  const selectPortal = db.prepare<[string], { id: string; subscriptionId: string; returnUrl: string | null; expiresAt: string }>(
    'SELECT id, subscription_id AS subscriptionId, return_url AS returnUrl, expires_at AS expiresAt FROM portal_sessions WHERE id = ?',
  );

  const apply = db.transaction((record: SubscriptionRecord) => {
    const existing = select.get(record.id);
    if (record.status === 'active' && activeOther.get(record.appUuid, flag(record.livemode), record.address, record.id)) return 'conflict' as const;
    if (!existing) {
      insert.run(toRow(record));
      return { record, applied: true };
    }
    // Canceled is final, and a state older than the one applied is stale: both change nothing.
    if (existing.status === 'canceled' || record.stateVersion < existing.state_version) {
      return { record: toSubscription(existing), applied: false };
    }
    update.run(toRow(record));
    return { record: toSubscription(select.get(record.id) as SubscriptionRow), applied: true };
  });

  return {
    async get(id) {
      const row = select.get(id);
      return row ? toSubscription(row) : null;
    },
    async current(scope, address) {
      const row = current.get(scope.appUuid, flag(scope.livemode), address);
      return row ? toSubscription(row) : null;
    },
    async activeForApp(appUuid) {
      return activeForApp.all(appUuid).map(toSubscription);
    },
    async apply(record) {
      return apply(record);
    },
    async scheduleDowngrade(id, downgrade, at) {
      setDowngrade.run(downgrade?.tier ?? null, downgrade?.interval ?? null, downgrade?.priceId ?? null, at, id);
      const row = select.get(id);
      return row ? toSubscription(row) : null;
    },
    async due(now, limit, offset = 0) {
      return due.all(now, limit, offset).map(toSubscription);
    },
    async nextPeriodEnd(after) {
      return nextEnd.get(after)?.at ?? null;
    },
    async recordInvoice(invoice) {
      return insertInvoice.run(invoice).changes === 1;
    },
    async createPortalSession(session) {
      insertPortal.run(session);
    },
    async portalSession(id) {
      return selectPortal.get(id) ?? null;
    },
    async sandboxCard(customerId) {
      return selectCard.get(customerId)?.card ?? null;
    },
    async setSandboxCard(customerId, card) {
      upsertCard.run(customerId, card);
    },
  };
}
