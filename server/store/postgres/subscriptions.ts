import type { Sql, Tx } from './database.js';
import type { Store, SubscriptionRecord } from '../types.js';
import { toSubscription, type SubscriptionRow } from '../rows.js';


/** The subject's one active subscription (subscriptions_one_active) is taken by another. */
const isOneActiveViolation = (error: unknown) =>
  (error as { code?: string }).code === '23505' && (error as { constraint_name?: string }).constraint_name === 'subscriptions_one_active';

/**
 * Runs a write in a savepoint and answers 'conflict' when it would give the subject a second
 * active subscription: the failed statement is rolled back alone and the transaction goes on.
 */
async function unlessSecondActive<T>(tx: Tx, write: (sp: Tx) => Promise<T>): Promise<T | 'conflict'> {
  try {
    return (await tx.savepoint(write)) as T;
  } catch (error) {
    if (isOneActiveViolation(error)) return 'conflict';
    throw error;
  }
}

async function applyIn(tx: Tx, record: SubscriptionRecord): Promise<{ record: SubscriptionRecord; applied: boolean } | 'conflict'> {
  // Twice at most: when another instance creates the same subscription between our look and our
  // insert, the second pass finds (and locks) its row and applies over it.
  for (let pass = 0; pass < 2; pass++) {
    const [existing] = await tx<SubscriptionRow[]>`SELECT * FROM subscriptions WHERE id = ${record.id} FOR UPDATE`;
    if (record.status === 'active') {
      const [other] = await tx`
        SELECT 1 FROM subscriptions
        WHERE app_uuid = ${record.appUuid} AND livemode = ${record.livemode} AND address = ${record.address}
          AND status = 'active' AND id <> ${record.id}`;
      if (other) return 'conflict';
    }
    if (!existing) {
      // An active subscription the subject gained since the check above (another instance's, not
      // yet committed then) still ends as 'conflict', through the unique index.
      const inserted = await unlessSecondActive(tx, (sp) => sp`
        INSERT INTO subscriptions (id, developer_id, app_uuid, address, customer_id, tier, interval, status,
          current_period_start, current_period_end, cancel_at_period_end, price_id, scheduled_tier, scheduled_interval,
          scheduled_price_id, state_version, created_at, updated_at, livemode)
        VALUES (${record.id}, ${record.developerId}, ${record.appUuid}, ${record.address}, ${record.customerId},
          ${record.tier}, ${record.interval}, ${record.status}, ${record.currentPeriodStart}, ${record.currentPeriodEnd},
          ${record.cancelAtPeriodEnd}, ${record.priceId}, ${record.scheduledDowngrade?.tier ?? null},
          ${record.scheduledDowngrade?.interval ?? null}, ${record.scheduledDowngrade?.priceId ?? null},
          ${record.stateVersion}, ${record.createdAt}, ${record.updatedAt}, ${record.livemode})
        ON CONFLICT (id) DO NOTHING`.then((result) => result.count));
      if (inserted === 'conflict') return 'conflict';
      if (inserted === 1) return { record, applied: true };
      continue;
    }
    // Canceled is final, and a state older than the one applied is stale: both change nothing.
    if (existing.status === 'canceled' || record.stateVersion < existing.state_version) {
      return { record: toSubscription(existing), applied: false };
    }
    // The processor's state; the scheduled downgrade is ours and survives it (unless canceled).
    const canceled = record.status === 'canceled';
    const updated = await unlessSecondActive(tx, (sp) => sp<SubscriptionRow[]>`
      UPDATE subscriptions SET customer_id = COALESCE(${record.customerId}, customer_id), tier = ${record.tier},
        interval = ${record.interval}, status = ${record.status}, current_period_start = ${record.currentPeriodStart},
        current_period_end = ${record.currentPeriodEnd}, cancel_at_period_end = ${record.cancelAtPeriodEnd},
        state_version = ${record.stateVersion}, updated_at = ${record.updatedAt},
        price_id = COALESCE(${record.priceId}, price_id),
        scheduled_tier = CASE WHEN ${canceled} THEN NULL ELSE scheduled_tier END,
        scheduled_interval = CASE WHEN ${canceled} THEN NULL ELSE scheduled_interval END,
        scheduled_price_id = CASE WHEN ${canceled} THEN NULL ELSE scheduled_price_id END
      WHERE id = ${record.id} RETURNING *`.then(([row]) => row));
    if (updated === 'conflict') return 'conflict';
    if (!updated) throw new Error(`subscription ${record.id} vanished while locked`);
    return { record: toSubscription(updated), applied: true };
  }
  throw new Error(`subscription ${record.id} could be neither inserted nor found`);
}

export function createSubscriptionsRepository(sql: Sql): Store['subscriptions'] {
  return {
    async get(id) {
      const [row] = await sql<SubscriptionRow[]>`SELECT * FROM subscriptions WHERE id = ${id}`;
      return row ? toSubscription(row) : null;
    },

    async current(scope, address) {
      const [row] = await sql<SubscriptionRow[]>`
        SELECT * FROM subscriptions WHERE app_uuid = ${scope.appUuid} AND livemode = ${scope.livemode} AND address = ${address}
        ORDER BY status = 'active' DESC, created_at DESC, id COLLATE "C" DESC LIMIT 1`;
      return row ? toSubscription(row) : null;
    },

    async activeForApp(appUuid) {
      const rows = await sql<SubscriptionRow[]>`SELECT * FROM subscriptions WHERE app_uuid = ${appUuid} AND status = 'active' ORDER BY id COLLATE "C"`;
      return rows.map(toSubscription);
    },

    async apply(record) {
      return sql.begin((tx) => applyIn(tx, record));
    },

    async scheduleDowngrade(id, downgrade, at) {
      const [row] = await sql<SubscriptionRow[]>`
        UPDATE subscriptions SET scheduled_tier = ${downgrade?.tier ?? null}, scheduled_interval = ${downgrade?.interval ?? null},
          scheduled_price_id = ${downgrade?.priceId ?? null}, updated_at = ${at}
        WHERE id = ${id} RETURNING *`;
      return row ? toSubscription(row) : null;
    },

    async due(now, limit, offset = 0) {
      const rows = await sql<SubscriptionRow[]>`
        SELECT * FROM subscriptions WHERE status = 'active' AND current_period_end <= ${now}
        ORDER BY current_period_end, id COLLATE "C" LIMIT ${limit} OFFSET ${offset}`;
      return rows.map(toSubscription);
    },

    async nextPeriodEnd(after) {
      const [row] = await sql<{ at: string | null }[]>`
        SELECT MIN(current_period_end) AS at FROM subscriptions WHERE status = 'active' AND current_period_end > ${after}`;
      return row?.at ?? null;
    },

    async recordInvoice(invoice) {
      // Of two instances recording the same invoice, the insert that loses the race changes nothing.
      const result = await sql`
        INSERT INTO subscription_invoices (id, subscription_id, developer_id, amount_usd_cents, credits_micro, description, paid_at)
        VALUES (${invoice.id}, ${invoice.subscriptionId}, ${invoice.developerId}, ${invoice.amountUsdCents},
          ${invoice.creditsMicro}, ${invoice.description}, ${invoice.paidAt})
        ON CONFLICT (id) DO NOTHING`;
      return result.count === 1;
    },

    async createPortalSession(session) {
      await sql`
        INSERT INTO portal_sessions (id, subscription_id, return_url, expires_at)
        VALUES (${session.id}, ${session.subscriptionId}, ${session.returnUrl}, ${session.expiresAt})`;
    },

    async sandboxCard(customerId) {
      const [row] = await sql<{ card: string }[]>`SELECT card FROM sandbox_cards WHERE customer_id = ${customerId}`;
      return row?.card ?? null;
    },

    async setSandboxCard(customerId, card) {
      await sql`
        INSERT INTO sandbox_cards (customer_id, card) VALUES (${customerId}, ${card})
        ON CONFLICT (customer_id) DO UPDATE SET card = EXCLUDED.card`;
    },

    async portalSession(id) {
      const [row] = await sql<{ id: string; subscriptionId: string; returnUrl: string | null; expiresAt: string }[]>`
        SELECT id, subscription_id AS "subscriptionId", return_url AS "returnUrl", expires_at AS "expiresAt"
        FROM portal_sessions WHERE id = ${id}`;
      return row ? { ...row } : null;
    },
  };
}
