import type { SubscriptionRecord } from '../store/types.js';
import type { SubscriptionState } from './events.js';

/** What a checkout sells: an amount of credits (one payment) or a plan (a subscription). */
export interface CheckoutRequest {
  mode: 'payment' | 'subscription';
  description: string;
  /** The price of a payment; a subscription's comes with its plan. */
  amountUsdCents: number;
  priceId: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  /** Who pays and what for; the processor hands it back in its events. */
  metadata: Record<string, string>;
  /** This server's origin, for the sandbox's pages and a processor's default redirects. */
  origin: string;
  expiresAt: Date;
}

/** A change to a running subscription that moves no money: cancelling at the period end, or not. */
export type SubscriptionChange = { cancelAtPeriodEnd: boolean };

/** What a plan change charged: the processor's invoice for it, paid. */
export interface PaidCharge {
  invoiceId: string;
  amountPaidCents: number;
}

/**
 * A payment processor: takes payments and runs subscriptions, and reports what happened as
 * signed webhook events to `POST /subscriptions/webhook`. The server's state follows those events;
 * the processor's answers to changes are applied at once too, so a caller sees its change.
 */
export interface PaymentProcessor {
  readonly name: 'sandbox' | 'stripe';
  /** The secret its webhook events are signed with. */
  readonly webhookSecret: string;
  createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  createPortal(subscription: SubscriptionRecord, returnUrl: string | null, origin: string): Promise<{ id: string; url: string }>;
  updateSubscription(subscription: SubscriptionRecord, change: SubscriptionChange): Promise<SubscriptionState>;
  /**
   * Moves a subscription to another plan now, charging the prorated difference at once. The change
   * happens only if that payment goes through: a declined one throws `paymentDeclined` (402) and
   * leaves the subscription as it was. `charge` is the paid invoice, null when nothing was due.
   */
  changePlan(subscription: SubscriptionRecord, priceId: string): Promise<{ state: SubscriptionState; charge: PaidCharge | null }>;
  /**
   * Plans the price the next period starts with (a downgrade at the period end), or withdraws
   * the plan (null). A processor that runs periods itself must know ahead of its renewal.
   */
  scheduleNextPeriod(subscription: SubscriptionRecord, priceId: string | null): Promise<void>;
  /** Ends a subscription now, without a refund (its app is being deleted). */
  cancelNow(subscription: SubscriptionRecord): Promise<SubscriptionState>;
  /**
   * Called by the billing clock when an active subscription's period has ended, with the price of
   * the next period (a scheduled downgrade's, or the current one). True when the processor moved
   * the subscription on (it then reports the new state); false when it will report it later.
   */
  endPeriod(subscription: SubscriptionRecord, nextPriceId: string): Promise<boolean>;
}
