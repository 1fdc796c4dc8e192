// Checkouts, subscriptions and their invoices, the billing history, and the ledger audit.

export interface CheckoutSessionRecord {
  id: string;
  kind: 'credit_pack' | 'app_funding' | 'subscription';
  developerId: string;
  appUuid: string;
  /** The user who pays (and is credited); null when the app is. */
  address: string | null;
  creditsMicro: number;
  amountUsdCents: number;
  description: string;
  status: 'open' | 'complete' | 'expired';
  successUrl: string | null;
  cancelUrl: string | null;
  referral: string | null;
  createdAt: string;
  paidAt: string | null;
  expiresAt: string;
  /** The plan a subscription checkout sells; null for credits. */
  priceId: string | null;
  /** False for test mode (a test key or a sandbox user): it pays play money into a test balance. */
  livemode: boolean;
}

export type Tier = 'starter' | 'pro';

export type BillingInterval = 'month' | 'year';

/** A processor subscription as this server knows it. `address` is '' when the app subscribes. */
export interface SubscriptionRecord {
  id: string;
  developerId: string;
  appUuid: string;
  address: string;
  customerId: string | null;
  tier: Tier;
  interval: BillingInterval;
  status: 'active' | 'canceled';
  currentPeriodStart: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  /**
   * The processor's price id of the plan, as it last reported it (null until a report names one).
   * A plan taken off sale here keeps its subscriptions, which the processor goes on billing at
   * this price: it is how a report of a price no longer configured is still known.
   */
  priceId: string | null;
  /** The downgrade planned for the period end, with the price it was planned at the processor with (null: not known). */
  scheduledDowngrade: { tier: Tier; interval: BillingInterval; priceId: string | null } | null;
  /** Seconds: the time of the newest processor state applied. */
  stateVersion: number;
  createdAt: string;
  updatedAt: string;
  /** False for a test-mode subscription (a sandbox user's): its credits are play money. */
  livemode: boolean;
}

/** The ledger kind of an upgrade's credits: each one granted with its paid charge (`checkout.recordPaidUpgrade`). */
export const UPGRADE_GRANT = 'subscription_upgrade';

/** A subscription's charge after its checkout (a renewal or an upgrade). */
export interface SubscriptionInvoiceRecord {
  id: string;
  subscriptionId: string;
  developerId: string;
  amountUsdCents: number;
  creditsMicro: number;
  description: string;
  paidAt: string;
}

/** A line of the billing history: a checkout session or a subscription invoice. */
export interface BillingLine {
  id: string;
  kind: CheckoutSessionRecord['kind'];
  description: string;
  amountUsdCents: number;
  creditsMicro: number;
  status: CheckoutSessionRecord['status'];
  createdAt: string;
  paidAt: string | null;
}

/** Raw figures of the live ledger, for the conservation check (server/services/conservation.ts). */
export interface LedgerAudit {
  mismatches: { accountId: number; balanceMicro: number; ledgerMicro: number }[];
  /** Sum of live entries per kind; `legacy` for entries written before sources were required. */
  byKind: { kind: string; legacy: boolean; totalMicro: bigint }[];
  liveBalanceMicro: bigint;
  /** Requests whose cost was more than the balance could pay. */
  shortfalls: { requestId: string; appUuid: string; address: string | null; costMicro: number; chargedMicro: number; at: string }[];
}
