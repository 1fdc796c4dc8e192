import { z } from 'zod';
import { invalidRequest } from '../errors.js';
import { Interval, Tier as TierName } from '../../src/contract/schemas/account.js';
import type { BillingInterval, Tier } from '../store/types.js';

/**
 * The processor's webhook events, in Stripe's wire format, reduced to what this server acts on.
 * Stripe moved fields between API versions (a subscription's period onto its items, an invoice's
 * subscription under `parent`); both placements are read.
 */

/** Who a subscription belongs to, as we put it in the processor's metadata at checkout. */
export interface SubjectMetadata {
  developerId: string;
  appUuid: string;
  address: string;
  /** From `svc_livemode`: false for test mode's play money. */
  livemode: boolean;
  /** The plan its checkout sold (null on a subscription from before checkouts named it). */
  sold: SoldPlan | null;
}

/** Who pays, as a checkout puts it in the processor's metadata (and `subjectOf` reads it back). */
export const subjectMetadata = (subject: { developerId: string; appUuid: string; address: string | null; livemode: boolean }): Record<string, string> => ({
  svc_developer_id: subject.developerId,
  svc_app_uuid: subject.appUuid,
  svc_address: subject.address ?? '',
  svc_livemode: subject.livemode ? '1' : '0',
});

/** The plan a subscription checkout sold, and the price it was sold at. */
export interface SoldPlan {
  tier: Tier;
  interval: BillingInterval;
  priceId: string;
}

/**
 * The sold plan as the checkout puts it in the subscription's metadata: the processor hands it
 * back with every report of the subscription and its invoices, so a plan taken off sale (or
 * repriced) while its checkout was open is still known as the plan paid for.
 */
export const soldPlanMetadata = (plan: SoldPlan): Record<string, string> => ({
  svc_tier: plan.tier,
  svc_interval: plan.interval,
  svc_price_id: plan.priceId,
});

/** The sold plan's keys, by the contract's own tiers and intervals. */
const SoldPlanKeys = z.object({ svc_tier: TierName, svc_interval: Interval, svc_price_id: z.string().min(1) });

function soldPlanOf(metadata: Record<string, string>): SoldPlan | null {
  const keys = SoldPlanKeys.safeParse(metadata);
  return keys.success ? { tier: keys.data.svc_tier, interval: keys.data.svc_interval, priceId: keys.data.svc_price_id } : null;
}

export interface SubscriptionState {
  id: string;
  customerId: string | null;
  priceId: string;
  status: 'active' | 'canceled';
  periodStart: Date;
  periodEnd: Date;
  cancelAtPeriodEnd: boolean;
  subject: SubjectMetadata | null;
}

export type PaymentEvent =
  | { kind: 'checkout_completed'; id: string; created: number; sessionId: string; subscriptionId: string | null }
  | { kind: 'subscription'; id: string; created: number; state: SubscriptionState }
  | {
      kind: 'invoice_paid';
      id: string;
      created: number;
      invoiceId: string;
      subscriptionId: string;
      billingReason: string;
      amountPaidCents: number;
      priceId: string | null;
      periodStart: Date;
      periodEnd: Date;
      subject: SubjectMetadata | null;
    }
  | { kind: 'ignored'; id: string; type: string };

const Metadata = z.record(z.string(), z.string()).nullish();
const Seconds = z.number().int().nonnegative();
const toDate = (seconds: number) => new Date(seconds * 1000);

function subjectOf(metadata: z.infer<typeof Metadata>): SubjectMetadata | null {
  if (!metadata?.svc_developer_id || !metadata.svc_app_uuid) return null;
  return {
    developerId: metadata.svc_developer_id,
    appUuid: metadata.svc_app_uuid,
    address: metadata.svc_address ?? '',
    livemode: metadata.svc_livemode !== '0',
    sold: soldPlanOf(metadata),
  };
}

const Envelope = z.object({ id: z.string().min(1), type: z.string().min(1), created: Seconds.optional(), data: z.object({ object: z.looseObject({}) }) });

const CheckoutSession = z.looseObject({
  id: z.string(),
  payment_status: z.string().optional(),
  subscription: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
});

const SubscriptionItem = z.looseObject({
  price: z.looseObject({ id: z.string() }),
  current_period_start: Seconds.optional(),
  current_period_end: Seconds.optional(),
});
const Subscription = z.looseObject({
  id: z.string(),
  customer: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
  status: z.string(),
  cancel_at_period_end: z.boolean().default(false),
  current_period_start: Seconds.optional(),
  current_period_end: Seconds.optional(),
  items: z.object({ data: z.array(SubscriptionItem).min(1) }),
  metadata: Metadata,
});

const InvoiceLine = z.looseObject({
  period: z.object({ start: Seconds, end: Seconds }),
  price: z.looseObject({ id: z.string() }).nullish(),
  pricing: z.looseObject({ price_details: z.looseObject({ price: z.string() }).nullish() }).nullish(),
});
const Invoice = z.looseObject({
  id: z.string(),
  billing_reason: z.string().nullish(),
  amount_paid: z.number().int().nonnegative(),
  subscription: z.string().nullish(),
  subscription_details: z.looseObject({ metadata: Metadata }).nullish(),
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: z.string(), metadata: Metadata }).nullish() }).nullish(),
  lines: z.object({ data: z.array(InvoiceLine).min(1) }),
});

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : (value?.id ?? null));

/** Stripe's subscription statuses, as this server sees them: still running, or over. */
const OVER = new Set(['canceled', 'incomplete_expired', 'unpaid']);

export function subscriptionStateOf(object: unknown): SubscriptionState {
  const sub = Subscription.parse(object);
  const item = sub.items.data[0] as z.infer<typeof SubscriptionItem>;
  const start = item.current_period_start ?? sub.current_period_start;
  const end = item.current_period_end ?? sub.current_period_end;
  if (start === undefined || end === undefined) throw new Error('subscription without a current period');
  return {
    id: sub.id,
    customerId: idOf(sub.customer),
    priceId: item.price.id,
    status: OVER.has(sub.status) ? 'canceled' : 'active',
    periodStart: toDate(start),
    periodEnd: toDate(end),
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    subject: subjectOf(sub.metadata),
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidRequest('The event is not JSON.', null, 'invalid_json');
  }
}

/** A verified webhook body as an event; 400 when it is not an event at all or its object is malformed. */
export function parsePaymentEvent(raw: Buffer): PaymentEvent {
  const envelope = Envelope.safeParse(parseJson(raw));
  if (!envelope.success) throw invalidRequest('The event needs an id, a type and data.object.', null, 'invalid_event');
  const { id, type, data } = envelope.data;
  const created = envelope.data.created ?? 0;
  try {
    switch (type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = CheckoutSession.parse(data.object);
        // Bank debits and the like complete unpaid; their money is reported later, by
        // checkout.session.async_payment_succeeded.
        if (session.payment_status === 'unpaid') return { kind: 'ignored', id, type };
        return { kind: 'checkout_completed', id, created, sessionId: session.id, subscriptionId: idOf(session.subscription) };
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const state = subscriptionStateOf(data.object);
        return { kind: 'subscription', id, created, state: type.endsWith('deleted') ? { ...state, status: 'canceled' } : state };
      }
      case 'invoice.paid': {
        const invoice = Invoice.parse(data.object);
        const details = invoice.parent?.subscription_details;
        const subscriptionId = details?.subscription ?? invoice.subscription;
        if (!subscriptionId) return { kind: 'ignored', id, type };
        const line = invoice.lines.data[0] as z.infer<typeof InvoiceLine>;
        return {
          kind: 'invoice_paid',
          id,
          created,
          invoiceId: invoice.id,
          subscriptionId,
          billingReason: invoice.billing_reason ?? 'manual',
          amountPaidCents: invoice.amount_paid,
          priceId: line.pricing?.price_details?.price ?? line.price?.id ?? null,
          periodStart: toDate(line.period.start),
          periodEnd: toDate(line.period.end),
          subject: subjectOf(details?.metadata ?? invoice.subscription_details?.metadata),
        };
      }
      default:
        return { kind: 'ignored', id, type };
    }
  } catch (error) {
    if (!(error instanceof z.ZodError) && !(error instanceof Error && error.message.startsWith('subscription without'))) throw error;
    throw invalidRequest(`The ${type} event's object is malformed: ${error.message.slice(0, 200)}`, null, 'invalid_event');
  }
}
