import type { z } from 'zod';
import type { PlanList, SubscriptionStatus } from '../../../src/contract/schemas/account.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { conflict, invalidRequest, notFound } from '../../errors.js';
import type { PaymentEvent, SubscriptionState } from '../../payments/events.js';
import type { PaymentProcessor } from '../../payments/processor.js';
import { creditsToMicro, microToCredits } from '../../store/money.js';
import type { BillingInterval, Payer, Store, SubscriptionRecord, Tier } from '../../store/types.js';
import type { PaymentsService, RedirectInput } from '../payments.js';
import { remainingShare } from './periods.js';
import { periodCredits, planRank, type Plan, type PlanCatalog } from './plans.js';

type Status = z.input<typeof SubscriptionStatus>;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const label = (sub: { tier: Tier; interval: BillingInterval }) => `${sub.tier} (${sub.interval})`;
const payerOf = (sub: Pick<SubscriptionRecord, 'appUuid' | 'address'>): Payer =>
  sub.address === '' ? { kind: 'app', appUuid: sub.appUuid } : { kind: 'user', appUuid: sub.appUuid, address: sub.address };
const subjectOf = (principal: Principal) => ({
  appUuid: principal.app.appUuid,
  address: principal.kind === 'user' ? principal.address : '',
});

/** Whether a subscription still runs at `now`: a cancel at the period end counts once the end has passed. */
const runningAt = (sub: SubscriptionRecord | null, now: Date): boolean =>
  sub !== null && sub.status === 'active' && !(sub.cancelAtPeriodEnd && Date.parse(sub.currentPeriodEnd) <= now.getTime());

/** The state, in words, for the 409s that refuse an operation. */
function describe(sub: SubscriptionRecord | null, now: Date): string {
  if (!sub) return 'You have no subscription';
  if (!runningAt(sub, now)) return `Your ${label(sub)} subscription ended on ${sub.currentPeriodEnd}`;
  if (sub.cancelAtPeriodEnd) return `Your ${label(sub)} subscription is canceled from the period end (${sub.currentPeriodEnd})`;
  const downgrade = sub.scheduledDowngrade ? `, with a downgrade to ${label(sub.scheduledDowngrade)} scheduled then` : '';
  return `You are on ${label(sub)} until ${sub.currentPeriodEnd}${downgrade}`;
}

/**
 * Subscriptions (DESIGN §6): none → active → active and canceling at the period end → canceled.
 * The processor owns the subscription; this service asks it for changes and applies the states
 * it reports (by webhook, or in its answer), newest wins. Credits come per period with each paid
 * invoice, and at once, prorated, with an upgrade; a period's grant is keyed by the period, so it
 * is granted once however often it is reported.
 */
export function createSubscriptionsService(deps: {
  store: Store;
  clock: Clock;
  plans: PlanCatalog;
  processor: PaymentProcessor;
  payments: PaymentsService;
  /** Told when a period end may have moved, so the billing clock can plan its next run. */
  onPeriodsChanged?: () => void;
}) {
  const { store, clock, plans, processor, payments } = deps;

  // The plan's rate-limit multiplier is asked on every request: cached per subscriber for a
  // minute (never past the period's end), and dropped whenever a state is applied.
  const multipliers = new Map<string, { times: number; until: number }>();
  const MULTIPLIER_TTL_MS = 60_000;
  const subscriberKey = (sub: { appUuid: string; address: string }) => `${sub.appUuid}/${sub.address}`;

  async function planMultiplier(subscriber: { appUuid: string; address: string }): Promise<number> {
    const now = clock.now();
    const cached = multipliers.get(subscriberKey(subscriber));
    if (cached && now.getTime() < cached.until) return cached.times;
    const sub = await store.subscriptions.current(subscriber.appUuid, subscriber.address);
    const running = sub !== null && runningAt(sub, now);
    const times = running ? plans.find(sub.tier, sub.interval).rateLimitMultiplier : 1;
    const until = Math.min(now.getTime() + MULTIPLIER_TTL_MS, running ? Date.parse(sub.currentPeriodEnd) : Infinity);
    if (multipliers.size >= 100_000) multipliers.clear();
    multipliers.set(subscriberKey(subscriber), { times, until });
    return times;
  }

  function present(sub: SubscriptionRecord | null): Status {
    const now = clock.now();
    if (!sub) {
      return {
        tier: null,
        interval: null,
        status: 'none',
        current_period_start: null,
        current_period_end: null,
        cancel_at_period_end: false,
        scheduled_downgrade: null,
      };
    }
    const running = runningAt(sub, now);
    return {
      tier: sub.tier,
      interval: sub.interval,
      status: running ? 'active' : 'canceled',
      current_period_start: sub.currentPeriodStart,
      current_period_end: sub.currentPeriodEnd,
      cancel_at_period_end: running && sub.cancelAtPeriodEnd,
      scheduled_downgrade:
        running && sub.scheduledDowngrade ? { ...sub.scheduledDowngrade, effective_at: sub.currentPeriodEnd } : null,
    };
  }

  const currentOf = (principal: Principal) => {
    const { appUuid, address } = subjectOf(principal);
    return store.subscriptions.current(appUuid, address);
  };

  /** The caller's running subscription, or a 409 saying why there is none to change. */
  async function running(principal: Principal, operation: string): Promise<SubscriptionRecord> {
    const sub = await currentOf(principal);
    if (!sub || !runningAt(sub, clock.now())) {
      throw conflict(`${describe(sub, clock.now())}: nothing to ${operation}. Start one with create-checkout-session.`, 'no_active_subscription');
    }
    return sub;
  }

  function planFor(input: { tier?: Tier | undefined; interval?: BillingInterval | undefined; price_id?: string | undefined }): Plan {
    if (input.price_id !== undefined) {
      const plan = plans.byPriceId(input.price_id);
      if (!plan) throw invalidRequest(`Unknown price_id '${input.price_id}'; subscriptions plans lists them.`, 'price_id');
      return plan;
    }
    if (!input.tier || !input.interval) {
      throw invalidRequest('Give tier and interval, or price_id.', input.tier ? 'interval' : 'tier', 'missing_field');
    }
    return plans.find(input.tier, input.interval);
  }

  /** Grants a paid period's credits, once per subscription and period start. */
  async function grantPeriod(sub: Pick<SubscriptionRecord, 'id' | 'appUuid' | 'address'>, plan: Plan, periodStart: Date) {
    const payer = payerOf(sub);
    if (payer.kind === 'user') await store.users.ensure(payer.appUuid, payer.address, clock.now().toISOString());
    await store.credits.grant(payer, {
      amountMicro: creditsToMicro(periodCredits(plan)),
      kind: 'subscription_grant',
      idempotencyKey: `subscription:${sub.id}:period:${periodStart.toISOString()}`,
      reference: sub.id,
      at: clock.now().toISOString(),
    });
  }

  /** Applies a state the processor reported; an unknown subscription without its subject is ignored. */
  async function applyState(state: SubscriptionState, version: number): Promise<SubscriptionRecord | null> {
    const plan = plans.byPriceId(state.priceId);
    const existing = await store.subscriptions.get(state.id);
    const subject = existing ?? state.subject;
    if (!plan || !subject) return existing;
    const at = clock.now().toISOString();
    const result = await store.subscriptions.apply({
      id: state.id,
      developerId: subject.developerId,
      appUuid: subject.appUuid,
      address: subject.address,
      customerId: state.customerId,
      tier: plan.tier,
      interval: plan.interval,
      status: state.status,
      currentPeriodStart: state.periodStart.toISOString(),
      currentPeriodEnd: state.periodEnd.toISOString(),
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      scheduledDowngrade: existing?.scheduledDowngrade ?? null,
      stateVersion: version,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    });
    if (result === 'conflict') return existing;
    multipliers.delete(subscriberKey(subject));
    let record = result.record;
    // A downgrade is planned for the period end; once a new period has begun it has happened.
    if (result.applied && existing?.scheduledDowngrade && record.currentPeriodStart > existing.currentPeriodStart) {
      record = (await store.subscriptions.scheduleDowngrade(record.id, null, at)) ?? record;
    }
    deps.onPeriodsChanged?.();
    return record;
  }

  function openCheckout(owner: { developerId: string; appUuid: string; address: string }, plan: Plan, input: RedirectInput, origin: string) {
    return payments.open(
      {
        kind: 'subscription',
        developerId: owner.developerId,
        appUuid: owner.appUuid,
        address: owner.address === '' ? null : owner.address,
        creditsMicro: creditsToMicro(periodCredits(plan)),
        amountUsdCents: plan.priceUsdCents,
        description: `svc ${label(plan)} plan`,
        priceId: plan.priceId,
      },
      input,
      origin,
    );
  }

  async function change(sub: SubscriptionRecord, request: Parameters<PaymentProcessor['updateSubscription']>[1]) {
    const state = await processor.updateSubscription(sub, request);
    return (await applyState(state, seconds(clock.now()))) ?? sub;
  }

  async function cancel(sub: SubscriptionRecord) {
    if (sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, clock.now())}: it is already canceling.`, 'already_canceling');
    const updated = await change(sub, { cancelAtPeriodEnd: true });
    return (await store.subscriptions.scheduleDowngrade(updated.id, null, clock.now().toISOString())) ?? updated;
  }

  async function renew(sub: SubscriptionRecord | null, origin: string) {
    const now = clock.now();
    if (!sub) throw conflict(`${describe(sub, now)} to renew. Start one with create-checkout-session.`, 'no_subscription');
    if (runningAt(sub, now)) {
      if (!sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, now)}; it renews by itself.`, 'not_canceling');
      return { ...present(await change(sub, { cancelAtPeriodEnd: false })), checkout_session: null };
    }
    const session = await openCheckout(sub, plans.find(sub.tier, sub.interval), {}, origin);
    return { ...present(sub), checkout_session: session };
  }

  return {
    applyState,
    planMultiplier,

    /** A paid invoice: the period's credits (for a new subscription or a new period), and the charge in the billing history. */
    async invoicePaid(invoice: Extract<PaymentEvent, { kind: 'invoice_paid' }>) {
      const existing = await store.subscriptions.get(invoice.subscriptionId);
      const subject = existing ?? invoice.subject;
      const plan = invoice.priceId ? plans.byPriceId(invoice.priceId) : existing ? plans.find(existing.tier, existing.interval) : null;
      if (!subject || !plan) return;
      const sub = { id: invoice.subscriptionId, appUuid: subject.appUuid, address: subject.address };
      // An upgrade's invoice carries no grant: the upgrade granted its prorated credits already.
      if (invoice.billingReason === 'subscription_create' || invoice.billingReason === 'subscription_cycle') {
        await grantPeriod(sub, plan, invoice.periodStart);
      }
      // The first charge is in the history as its checkout session.
      if (invoice.billingReason !== 'subscription_create') {
        await store.subscriptions.recordInvoice({
          id: invoice.invoiceId,
          subscriptionId: invoice.subscriptionId,
          developerId: subject.developerId,
          amountUsdCents: invoice.amountPaidCents,
          creditsMicro: invoice.billingReason === 'subscription_cycle' ? creditsToMicro(periodCredits(plan)) : 0,
          description: `${label(plan)} plan, ${invoice.billingReason === 'subscription_cycle' ? 'renewal' : 'change'}`,
          paidAt: clock.now().toISOString(),
        });
      }
    },

    plans(): z.input<typeof PlanList> {
      return {
        object: 'list',
        data: plans.all.map((plan) => ({
          tier: plan.tier,
          interval: plan.interval,
          price_usd: plan.priceUsdCents / 100,
          price_id: plan.priceId,
          monthly_credits: plan.monthlyCredits,
          features: plan.features,
        })),
      };
    },

    async status(principal: Principal) {
      return present(await currentOf(principal));
    },

    async checkout(principal: Principal, input: RedirectInput & { tier?: Tier; interval?: BillingInterval; price_id?: string }, origin: string) {
      const plan = planFor(input);
      const sub = await currentOf(principal);
      if (runningAt(sub, clock.now())) {
        throw conflict(`${describe(sub, clock.now())}. Use upgrade or schedule-downgrade to change plans.`, 'already_subscribed');
      }
      return openCheckout({ developerId: principal.developerId, ...subjectOf(principal) }, plan, input, origin);
    },

    async portal(principal: Principal, input: { return_url?: string | undefined }, origin: string) {
      const sub = await currentOf(principal);
      if (!sub) throw conflict('You have no subscription: the customer portal manages one. Start one with create-checkout-session.', 'no_subscription');
      const session = await processor.createPortal(sub, input.return_url ?? null, origin);
      return { id: session.id, object: 'portal.session' as const, url: session.url };
    },

    /** Upgrades now; the new plan's extra credits for the rest of the period are granted at once. */
    async upgrade(principal: Principal, input: { tier: Tier; interval?: BillingInterval | undefined }) {
      const sub = await running(principal, 'upgrade');
      const now = clock.now();
      if (sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, now)}: renew it before upgrading.`, 'subscription_canceling');
      const from = plans.find(sub.tier, sub.interval);
      const to = plans.find(input.tier, input.interval ?? sub.interval);
      if (planRank(to) <= planRank(from)) {
        throw conflict(`${describe(sub, now)}: an upgrade goes to a higher plan — a higher tier, or yearly from monthly (schedule-downgrade goes lower).`, 'not_an_upgrade');
      }
      const unusedMicro = creditsToMicro(periodCredits(from)) * remainingShare(sub.currentPeriodStart, sub.currentPeriodEnd, now);
      const updated = await change(sub, { priceId: to.priceId, prorate: true });
      const newPeriodMicro = creditsToMicro(periodCredits(to)) * remainingShare(updated.currentPeriodStart, updated.currentPeriodEnd, now);
      const prorated = Math.floor(Math.max(0, newPeriodMicro - unusedMicro));
      if (prorated > 0) {
        await store.credits.grant(payerOf(sub), {
          amountMicro: prorated,
          kind: 'subscription_upgrade',
          idempotencyKey: `subscription:${sub.id}:upgrade:${to.tier}:${updated.currentPeriodStart}`,
          reference: sub.id,
          at: now.toISOString(),
        });
      }
      const cleared = await store.subscriptions.scheduleDowngrade(sub.id, null, now.toISOString());
      return { ...present(cleared ?? updated), granted_credits: microToCredits(prorated) };
    },

    async scheduleDowngrade(principal: Principal, input: { tier: Tier; interval?: BillingInterval | undefined }) {
      const sub = await running(principal, 'downgrade');
      const now = clock.now();
      if (sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, now)}: renew it before scheduling a downgrade.`, 'subscription_canceling');
      const downgrade = { tier: input.tier, interval: input.interval ?? sub.interval };
      if (planRank(downgrade) >= planRank(sub)) {
        throw conflict(`${describe(sub, now)}: a downgrade goes to a lower plan — a lower tier, or monthly from yearly (upgrade goes higher).`, 'not_a_downgrade');
      }
      return present(await store.subscriptions.scheduleDowngrade(sub.id, downgrade, now.toISOString()));
    },

    async cancelScheduledDowngrade(principal: Principal) {
      const sub = await running(principal, 'change');
      if (!sub.scheduledDowngrade) throw conflict(`${describe(sub, clock.now())}: no downgrade is scheduled.`, 'no_scheduled_downgrade');
      return present(await store.subscriptions.scheduleDowngrade(sub.id, null, clock.now().toISOString()));
    },

    async cancel(principal: Principal) {
      return present(await cancel(await running(principal, 'cancel')));
    },

    /** Lifts a pending cancel; after the end, opens a checkout for the same plan. */
    async renew(principal: Principal, origin: string) {
      return renew(await currentOf(principal), origin);
    },

    /** The sandbox's customer portal: the session, its subscription as the status shows it. */
    async portalSession(id: string) {
      const session = await store.subscriptions.portalSession(id);
      const sub = session && session.expiresAt > clock.now().toISOString() ? await store.subscriptions.get(session.subscriptionId) : null;
      if (!session || !sub) throw notFound('This customer portal link has expired or does not exist.', 'portal_session_not_found');
      return { session, subscription: sub, status: present(sub) };
    },

    /** The portal's buttons: cancel at the period end, or renew (which may need a checkout). */
    async portalAction(id: string, action: 'cancel' | 'renew', origin: string) {
      const { session, subscription } = await this.portalSession(id);
      if (action === 'renew') return { returnUrl: session.returnUrl, ...(await renew(subscription, origin)) };
      if (!runningAt(subscription, clock.now())) throw conflict(`${describe(subscription, clock.now())}: nothing to cancel.`, 'no_active_subscription');
      return { returnUrl: session.returnUrl, ...present(await cancel(subscription)), checkout_session: null };
    },
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
