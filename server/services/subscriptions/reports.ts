import type { Clock } from '../../clock.js';
import type { PaymentEvent, SoldPlan, SubscriptionState } from '../../payments/events.js';
import { creditsToMicro } from '../../store/money.js';
import type { Store, SubscriptionRecord } from '../../store/types.js';
import { periodCredits, type Plan, type PlanCatalog } from '../../payments/plans.js';
import type { RateMultipliers } from './rate-multipliers.js';
import { label, payerOf, subscriberScope, type Subscriber } from './state.js';

/**
 * What the payment processor reports about subscriptions — their states and their paid
 * invoices — applied to the store. Each report is safe to apply again and in any order: a state
 * older than the one applied changes nothing, canceled is final, and a period's credits are
 * keyed by the subscription and the period's start.
 */
export function createSubscriptionReports(deps: {
  store: Store;
  clock: Clock;
  plans: PlanCatalog;
  multipliers: RateMultipliers;
  /** Told when a period end may have moved, so the billing clock can plan its next run. */
  onPeriodsChanged?: () => void;
}) {
  const { store, clock, plans } = deps;

  /**
   * Whether the subscriber's app is still there. Metadata names it, but the app may have been
   * deleted since (or an event be forged with our secret): such a report is acknowledged and
   * changes nothing, rather than failing so the processor retries it forever.
   */
  const appExists = async (owner: { developerId: string; appUuid: string }) =>
    (await store.apps.get(owner.developerId, owner.appUuid)) !== null;

  /**
   * The plan a reported price is: ours by its configured id; else the plan its checkout sold at
   * that very price (the subscription's metadata), or, for a subscription on record, the plan it
   * was recorded at that very price (its own, or its planned downgrade's) — a plan taken off sale
   * (its price variable unset) or repriced keeps its subscriptions, and the checkouts still open
   * for it: the processor goes on billing them at the old price, and each paid period must still
   * be followed and grant. Any other price is not ours (set at the processor by hand). No price:
   * the plan on record.
   */
  const planOf = (priceId: string | null, existing: SubscriptionRecord | null, sold: SoldPlan | null): Plan | null => {
    if (priceId === null) return existing ? plans.find(existing.tier, existing.interval) : null;
    const known = plans.byPriceId(priceId);
    if (known) return known;
    if (sold?.priceId === priceId) return plans.find(sold.tier, sold.interval);
    if (!existing) return null;
    // The subscription's plan and its planned downgrade's, each with the price it was recorded at.
    const planned = existing.scheduledDowngrade;
    const candidates = [{ plan: plans.find(existing.tier, existing.interval), price: existing.priceId }];
    if (planned) candidates.push({ plan: plans.find(planned.tier, planned.interval), price: planned.priceId });
    const recorded = candidates.find((candidate) => candidate.price === priceId);
    if (recorded) return recorded.plan;
    // Recorded before prices were (and not reported since), a plan off sale has no price known
    // here: when one plan alone can be the one billed, it is that plan, and its price is kept.
    const unknown = candidates.filter((candidate) => candidate.price === null && !candidate.plan.onSale);
    return unknown.length === 1 ? (unknown[0]?.plan ?? null) : null;
  };

  /** Grants a paid period's credits, once per subscription and period start. */
  async function grantPeriod(sub: Subscriber & { id: string }, plan: Plan, periodStart: Date) {
    const payer = payerOf(sub);
    if (payer.kind === 'user') await store.users.ensure(subscriberScope(sub), payer.address, clock.now().toISOString());
    await store.credits.grant(payer, {
      amountMicro: creditsToMicro(periodCredits(plan)),
      kind: 'subscription_grant',
      idempotencyKey: `subscription:${sub.id}:period:${periodStart.toISOString()}`,
      reference: sub.id,
      at: clock.now().toISOString(),
    });
  }

  return {
    /** A subscription's state; an unknown subscription without our metadata is ignored. */
    async state(state: SubscriptionState, version: number): Promise<SubscriptionRecord | null> {
      const existing = await store.subscriptions.get(state.id);
      const matched = planOf(state.priceId, existing, state.subject?.sold ?? null);
      // An end is followed at whatever price, its plan the one on record (its price not taken for
      // ours): it grants nothing, and canceled is final.
      const plan = matched ?? (existing && state.status === 'canceled' ? plans.find(existing.tier, existing.interval) : null);
      const owner = existing ?? state.subject;
      if (!plan || !owner || (!existing && !(await appExists(owner)))) return existing;
      const at = clock.now().toISOString();
      const result = await store.subscriptions.apply({
        id: state.id,
        developerId: owner.developerId,
        appUuid: owner.appUuid,
        address: owner.address,
        customerId: state.customerId,
        tier: plan.tier,
        interval: plan.interval,
        status: state.status,
        currentPeriodStart: state.periodStart.toISOString(),
        currentPeriodEnd: state.periodEnd.toISOString(),
        cancelAtPeriodEnd: state.cancelAtPeriodEnd,
        priceId: matched ? state.priceId : (existing?.priceId ?? null),
        scheduledDowngrade: existing?.scheduledDowngrade ?? null,
        stateVersion: version,
        livemode: existing?.livemode ?? state.subject?.livemode ?? true,
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      });
      if (result === 'conflict') return existing;
      deps.multipliers.forget(owner);
      let record = result.record;
      // A downgrade is planned for the period end; once a new period has begun it has happened.
      if (result.applied && existing?.scheduledDowngrade && record.currentPeriodStart > existing.currentPeriodStart) {
        record = (await store.subscriptions.scheduleDowngrade(record.id, null, at)) ?? record;
      }
      deps.onPeriodsChanged?.();
      return record;
    },

    /** A paid invoice: the period's credits (for a new subscription or a new period), and the charge in the billing history. */
    async invoicePaid(invoice: Extract<PaymentEvent, { kind: 'invoice_paid' }>): Promise<void> {
      const existing = await store.subscriptions.get(invoice.subscriptionId);
      const owner = existing ?? invoice.subject;
      const plan = planOf(invoice.priceId, existing, invoice.subject?.sold ?? null);
      if (!owner || !plan || !(await appExists(owner))) return;
      const renewal = invoice.billingReason === 'subscription_cycle';
      // An upgrade's invoice carries no grant: the upgrade granted its prorated credits already.
      if (renewal || invoice.billingReason === 'subscription_create') {
        await grantPeriod(
          { id: invoice.subscriptionId, appUuid: owner.appUuid, address: owner.address, livemode: owner.livemode },
          plan,
          invoice.periodStart,
        );
      }
      // The first charge is in the history as its checkout session.
      if (invoice.billingReason !== 'subscription_create') {
        await store.subscriptions.recordInvoice({
          id: invoice.invoiceId,
          subscriptionId: invoice.subscriptionId,
          developerId: owner.developerId,
          amountUsdCents: invoice.amountPaidCents,
          creditsMicro: renewal ? creditsToMicro(periodCredits(plan)) : 0,
          description: `${label(plan)} plan, ${renewal ? 'renewal' : 'change'}`,
          paidAt: clock.now().toISOString(),
        });
      }
    },
  };
}

export type SubscriptionReports = ReturnType<typeof createSubscriptionReports>;
