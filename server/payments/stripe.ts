import type StripeClient from 'stripe';
import { ApiError } from '../errors.js';
import type { PlanCatalog } from './plans.js';
import { subscriptionStateOf } from './events.js';
import type { PaidCharge, PaymentProcessor } from './processor.js';
import { letGoOfDowngrade, paymentDeclined } from './processors.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Another API endpoint (stripe-mock, or a fake in tests), e.g. http://127.0.0.1:12111. */
  apiUrl?: string | undefined;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Stripe refuses expiries more than 24 h ahead or less than 30 min. */
const CHECKOUT_MAX_LIFETIME_S = 23 * 60 * 60;

/** A failure at Stripe is a 502 that says what Stripe said, never a 500 or a leaked key. */
async function atStripeWith<T>(Stripe: typeof StripeClient, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) {
      const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 'unavailable';
      throw new ApiError(502, 'payment_processor_error', `Stripe refused to ${what} (${status}): ${error.message}`, 'payment_processor_error');
    }
    throw error;
  }
}

/** The change's invoice, when Stripe says it is paid with money: nothing else is a charge. */
function paidChangeOf(invoice: string | StripeClient.Invoice | null): PaidCharge | null {
  if (!invoice || typeof invoice === 'string' || invoice.status !== 'paid' || invoice.billing_reason !== 'subscription_update') return null;
  return invoice.amount_paid > 0 ? { invoiceId: invoice.id, amountPaidCents: invoice.amount_paid } : null;
}

/**
 * Stripe, through its SDK: Checkout for payments and subscriptions, the Billing customer portal,
 * and subscription changes. Stripe runs the periods itself and reports them by webhook; what
 * Stripe has no notion of — a downgrade planned for the period end — is applied here when the
 * billing clock says the period is over.
 */
export async function createStripeProcessor(settings: StripeSettings, plans: PlanCatalog): Promise<PaymentProcessor> {
  // Loaded only when Stripe is configured: the sandbox never parses the SDK.
  const { default: Stripe } = await import('stripe');
  const atStripe = <T>(what: string, call: () => Promise<T>) => atStripeWith(Stripe, what, call);
  const endpoint = settings.apiUrl ? new URL(settings.apiUrl) : null;
  const stripe = new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'svc' },
    ...(endpoint
      ? {
          host: endpoint.hostname,
          port: Number(endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80)),
          protocol: endpoint.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });

  /**
   * The subscription's item, after releasing any schedule: Stripe refuses changes to a
   * subscription a schedule manages, and every change we make supersedes a planned downgrade.
   */
  async function unscheduledItem(subscriptionId: string) {
    const current = await stripe.subscriptions.retrieve(subscriptionId);
    const scheduleId = typeof current.schedule === 'string' ? current.schedule : (current.schedule?.id ?? null);
    if (scheduleId) await stripe.subscriptionSchedules.release(scheduleId);
    const item = current.items.data[0];
    if (!item) throw new ApiError(502, 'payment_processor_error', `Stripe subscription ${subscriptionId} has no item.`, 'payment_processor_error');
    return item;
  }

  /** The subscription as Stripe has it now, with its latest invoice; null when Stripe cannot say. */
  async function subscriptionNow(subscriptionId: string): Promise<StripeClient.Subscription | null> {
    try {
      return await stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
    } catch {
      return null;
    }
  }

  const processor: PaymentProcessor = {
    name: 'stripe',
    webhookSecret: settings.webhookSecret,

    async createCheckout(request) {
      const common = {
        success_url: request.successUrl ?? `${request.origin}/`,
        ...(request.cancelUrl ? { cancel_url: request.cancelUrl } : {}),
        metadata: request.metadata,
        expires_at: Math.min(seconds(request.expiresAt), seconds(new Date()) + CHECKOUT_MAX_LIFETIME_S),
      };
      const session = await atStripe('open a checkout', () =>
        request.mode === 'subscription'
          ? stripe.checkout.sessions.create({
              ...common,
              mode: 'subscription',
              line_items: [{ price: request.priceId ?? '', quantity: 1 }],
              subscription_data: { metadata: request.metadata },
            })
          : stripe.checkout.sessions.create({
              ...common,
              mode: 'payment',
              line_items: [
                { quantity: 1, price_data: { currency: 'usd', unit_amount: request.amountUsdCents, product_data: { name: request.description } } },
              ],
            }),
      );
      if (!session.url) throw new ApiError(502, 'payment_processor_error', 'Stripe opened a checkout without a URL.', 'payment_processor_error');
      return { id: session.id, url: session.url };
    },

    async createPortal(subscription, returnUrl, origin) {
      if (!subscription.customerId) {
        throw new ApiError(409, 'conflict', 'This subscription has no Stripe customer yet; try again once its checkout is reported.', 'no_customer');
      }
      const customer = subscription.customerId;
      const session = await atStripe('open the customer portal', () =>
        stripe.billingPortal.sessions.create({ customer, return_url: returnUrl ?? `${origin}/` }),
      );
      return { id: session.id, url: session.url };
    },

    async updateSubscription(subscription, change) {
      const updated = await atStripe('change the subscription', async () => {
        await unscheduledItem(subscription.id);
        return stripe.subscriptions.update(subscription.id, { cancel_at_period_end: change.cancelAtPeriodEnd });
      });
      return subscriptionStateOf(updated);
    },

    /**
     * The prorated difference is invoiced and charged now; with `error_if_incomplete` Stripe makes
     * the change only once that invoice is paid, and answers a declined card with a card error,
     * the subscription untouched. (By default Stripe would change the plan and leave the invoice
     * open: credits for an upgrade nobody paid.)
     */
    async changePlan(subscription, priceId) {
      // Whether the downgrade planned before the change was let go and not planned again (below).
      let downgradeLetGo = false;
      const updated = await atStripe('change the plan', async () => {
        const item = await unscheduledItem(subscription.id);
        try {
          return await stripe.subscriptions.update(subscription.id, {
            items: [{ id: item.id, price: priceId }],
            proration_behavior: 'always_invoice',
            payment_behavior: 'error_if_incomplete',
            expand: ['latest_invoice'],
          });
        } catch (error) {
          // Declined, the change did not happen (error_if_incomplete). Failed otherwise, it may have
          // (the answer lost after Stripe made it, and paid: it makes none unpaid), so Stripe is asked.
          const declined = error instanceof Stripe.errors.StripeCardError;
          const now = declined ? null : await subscriptionNow(subscription.id);
          const priceThen = now?.items.data[0]?.price.id ?? null;
          if (now && priceThen === priceId) return now;
          const failure = declined ? paymentDeclined(`Stripe declined the payment: ${error.message}`) : error;
          // The schedule of a planned downgrade was let go for the change: where the change surely
          // did not happen, the plan stands, planned again at its price. Else (Stripe cannot say, or
          // the price is not known: planned before prices were recorded, its plan off sale since)
          // it is gone, and the record drops it.
          const planned = subscription.scheduledDowngrade;
          const price = planned ? plans.plannedPrice(planned) : null;
          const unchanged = declined || priceThen === item.price.id;
          // Planned again, it stands; should that fail too, the failure is still the change's.
          const replanned = price !== null && unchanged && (await processor.scheduleNextPeriod(subscription, price).then(() => true, () => false));
          downgradeLetGo = planned !== null && !replanned;
          throw failure;
        }
      }).catch((error: unknown) => {
        throw downgradeLetGo ? letGoOfDowngrade(error) : error;
      });
      return { state: subscriptionStateOf(updated), charge: paidChangeOf(updated.latest_invoice) };
    },

    /**
     * A downgrade at the period end is a subscription schedule: this period at the current price,
     * then one period at the new one, then released to go on at it. Stripe renews at the new price
     * itself; no change at the last moment can race its renewal invoice.
     */
    async scheduleNextPeriod(subscription, priceId) {
      await atStripe('schedule the next period', async () => {
        const item = await unscheduledItem(subscription.id);
        if (priceId === null) return;
        // A configured price, or the one a downgrade was planned with before its plan went off sale.
        const planned = subscription.scheduledDowngrade;
        const next = plans.byPriceId(priceId) ?? (planned?.priceId === priceId ? planned : null);
        if (!next) throw new Error(`unknown price ${priceId}`);
        const schedule = await stripe.subscriptionSchedules.create({ from_subscription: subscription.id });
        const current = schedule.phases[0];
        if (!current) throw new ApiError(502, 'payment_processor_error', 'Stripe made a schedule without a phase.', 'payment_processor_error');
        await stripe.subscriptionSchedules.update(schedule.id, {
          end_behavior: 'release',
          phases: [
            { items: [{ price: item.price.id, quantity: 1 }], start_date: current.start_date, end_date: current.end_date },
            { items: [{ price: priceId, quantity: 1 }], duration: { interval: next.interval, interval_count: 1 }, proration_behavior: 'none' },
          ],
        });
      });
    },

    async cancelNow(subscription) {
      const ended = await atStripe('cancel the subscription', () => stripe.subscriptions.cancel(subscription.id));
      return { ...subscriptionStateOf(ended), status: 'canceled' };
    },

    async endPeriod() {
      // Stripe renews or ends the subscription itself (a downgrade by its schedule) and reports it.
      return false;
    },
  };
  return processor;
}
