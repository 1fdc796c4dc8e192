import { randomId } from '../ids.js';
import type { Clock } from '../clock.js';
import { conflict } from '../errors.js';
import { periodEnd, prorate } from './periods.js';
import type { PlanCatalog } from './plans.js';
import type { CheckoutSessionRecord, Store, SubscriptionRecord } from '../store/types.js';
import { subjectMetadata, subscriptionStateOf } from './events.js';
import type { PaymentProcessor } from './processor.js';
import { acceptCard, chargeDeclined, declinesCharges } from './sandbox-cards.js';
import { signEvent } from './signature.js';

const PORTAL_LIFETIME_MS = 60 * 60 * 1000;
const seconds = (date: Date | string) => Math.floor(new Date(date).getTime() / 1000);

interface SandboxSubscription {
  id: string;
  customerId: string;
  priceId: string;
  status: 'active' | 'canceled';
  start: Date;
  end: Date;
  cancelAtPeriodEnd: boolean;
  metadata: Record<string, string>;
}

/** A subscription object in Stripe's wire format (API 2025+: the period on the item). */
function subscriptionObject(sub: SandboxSubscription) {
  return {
    id: sub.id,
    object: 'subscription',
    customer: sub.customerId,
    status: sub.status,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    items: {
      object: 'list',
      data: [{ price: { id: sub.priceId }, current_period_start: seconds(sub.start), current_period_end: seconds(sub.end) }],
    },
    metadata: sub.metadata,
  };
}

function invoiceObject(sub: SandboxSubscription, reason: string, amountCents: number) {
  return {
    id: randomId('in'),
    object: 'invoice',
    billing_reason: reason,
    amount_paid: amountCents,
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
    lines: {
      object: 'list',
      data: [{ period: { start: seconds(sub.start), end: seconds(sub.end) }, pricing: { price_details: { price: sub.priceId } } }],
    },
  };
}

/**
 * The built-in processor: no money moves. Checkout and customer-portal links are pages of this
 * server (server/http/sandbox-pages.ts), and everything a real processor would report — a paid
 * checkout, a new period, a cancellation — arrives as a signed event at the same webhook receiver.
 */
export function createSandboxProcessor(deps: { store: Store; clock: Clock; plans: PlanCatalog; webhookSecret: string }) {
  const { store, clock, plans } = deps;
  let receiver: ((raw: Buffer, signature: string) => Promise<unknown>) | null = null;

  /** Signs an event and hands it to the receiver, as the processor's callback would. */
  async function emit(type: string, object: object): Promise<void> {
    if (!receiver) throw new Error('the sandbox processor is not connected to the webhook receiver');
    const created = seconds(clock.now());
    const payload = JSON.stringify({ id: randomId('evt'), object: 'event', type, created, data: { object } });
    await receiver(Buffer.from(payload), signEvent(payload, deps.webhookSecret, created));
  }

  const fromRecord = (record: SubscriptionRecord): SandboxSubscription => ({
    id: record.id,
    customerId: record.customerId ?? randomId('cus'),
    priceId: plans.find(record.tier, record.interval).priceId,
    status: record.status,
    start: new Date(record.currentPeriodStart),
    end: new Date(record.currentPeriodEnd),
    cancelAtPeriodEnd: record.cancelAtPeriodEnd,
    metadata: subjectMetadata(record),
  });

  const priceOf = (priceId: string) => {
    const plan = plans.byPriceId(priceId);
    if (!plan) throw new Error(`unknown price ${priceId}`);
    return plan;
  };

  /** The card the subscription's customer gave its portal, if any. */
  const cardOf = async (record: SubscriptionRecord) => (record.customerId ? store.subscriptions.sandboxCard(record.customerId) : null);

  const processor: PaymentProcessor & {
    connect(receive: (raw: Buffer, signature: string) => Promise<unknown>): void;
    paySession(session: CheckoutSessionRecord): Promise<void>;
    attachCard(record: SubscriptionRecord, card: string): Promise<void>;
  } = {
    name: 'sandbox',
    webhookSecret: deps.webhookSecret,

    connect(receive) {
      receiver = receive;
    },

    async createCheckout(request) {
      const id = randomId('cs', 16);
      return { id, url: `${request.origin}/sandbox/checkout/${id}` };
    },

    async createPortal(subscription, returnUrl, origin) {
      const id = randomId('bps', 16);
      const expiresAt = new Date(clock.now().getTime() + PORTAL_LIFETIME_MS).toISOString();
      await store.subscriptions.createPortalSession({ id, subscriptionId: subscription.id, returnUrl, expiresAt });
      return { id, url: `${origin}/sandbox/portal/${id}` };
    },

    async updateSubscription(record, change) {
      const sub = { ...fromRecord(record), cancelAtPeriodEnd: change.cancelAtPeriodEnd };
      await emit('customer.subscription.updated', subscriptionObject(sub));
      return subscriptionStateOf(subscriptionObject(sub));
    },

    /** As Stripe with `error_if_incomplete`: the prorated difference is charged first, and only a paid change happens. */
    async changePlan(record, priceId) {
      const now = clock.now();
      const sub = fromRecord(record);
      const [from, to] = [priceOf(sub.priceId), priceOf(priceId)];
      // A new interval starts a new period now, as processors reset the billing anchor.
      const next =
        to.interval === from.interval ? { ...sub, priceId } : { ...sub, priceId, start: now, end: periodEnd(now, to.interval) };
      const amountCents = Math.round(
        prorate(
          { amount: from.priceUsdCents, start: sub.start.toISOString(), end: sub.end.toISOString() },
          { amount: to.priceUsdCents, start: next.start.toISOString(), end: next.end.toISOString() },
          now,
        ),
      );
      const card = await cardOf(record);
      if (amountCents > 0 && declinesCharges(card)) throw chargeDeclined(card);
      const invoice = amountCents > 0 ? invoiceObject(next, 'subscription_update', amountCents) : null;
      if (invoice) await emit('invoice.paid', invoice);
      await emit('customer.subscription.updated', subscriptionObject(next));
      return {
        state: subscriptionStateOf(subscriptionObject(next)),
        charge: invoice ? { invoiceId: invoice.id, amountPaidCents: amountCents } : null,
      };
    },

    /** The customer portal's card form: later charges go to this card (a declined one is refused). */
    async attachCard(record, card) {
      const accepted = acceptCard(card);
      // Only one reported without a customer (a hand-made event) has none: nobody to give a card to.
      if (!record.customerId) throw conflict('This subscription has no customer to give a card to.', 'no_customer');
      await store.subscriptions.setSandboxCard(record.customerId, accepted);
    },

    async scheduleNextPeriod() {
      // Nothing to tell: the sandbox starts each period itself (endPeriod), with the plan due then.
    },

    async cancelNow(record) {
      const ended = subscriptionObject({ ...fromRecord(record), status: 'canceled' });
      await emit('customer.subscription.deleted', ended);
      return { ...subscriptionStateOf(ended), status: 'canceled' };
    },

    async endPeriod(record, nextPriceId) {
      const sub = fromRecord(record);
      // A renewal whose payment is declined ends the subscription: no period without its payment.
      // (Stripe retries first, then cancels; the sandbox does not wait.)
      if (record.cancelAtPeriodEnd || declinesCharges(await cardOf(record))) {
        await emit('customer.subscription.deleted', subscriptionObject({ ...sub, status: 'canceled' }));
        return true;
      }
      const plan = priceOf(nextPriceId);
      const next = { ...sub, priceId: nextPriceId, start: sub.end, end: periodEnd(sub.end, plan.interval) };
      await emit('invoice.paid', invoiceObject(next, 'subscription_cycle', plan.priceUsdCents));
      await emit('customer.subscription.updated', subscriptionObject(next));
      return true;
    },

    /** The buyer pays a sandbox checkout: the events a processor sends for it, in its order. */
    async paySession(session) {
      if (session.kind !== 'subscription' || !session.priceId) {
        await emit('checkout.session.completed', { id: session.id, object: 'checkout.session', mode: 'payment', payment_status: 'paid' });
        return;
      }
      // Opened before its plan's price was changed or unset (a restart with other prices): no
      // longer a price here, so nothing to sell at it.
      const plan = plans.byPriceId(session.priceId);
      if (!plan) throw conflict('This checkout’s plan is no longer sold at the price it was opened at; open a new checkout.', 'plan_not_on_sale');
      const start = clock.now();
      const sub: SandboxSubscription = {
        id: randomId('sub'),
        customerId: randomId('cus'),
        priceId: plan.priceId,
        status: 'active',
        start,
        end: periodEnd(start, plan.interval),
        cancelAtPeriodEnd: false,
        metadata: subjectMetadata(session),
      };
      await emit('customer.subscription.created', subscriptionObject(sub));
      await emit('invoice.paid', invoiceObject(sub, 'subscription_create', plan.priceUsdCents));
      await emit('checkout.session.completed', {
        id: session.id,
        object: 'checkout.session',
        mode: 'subscription',
        payment_status: 'paid',
        subscription: sub.id,
      });
    },
  };
  return processor;
}

export type SandboxProcessor = ReturnType<typeof createSandboxProcessor>;
