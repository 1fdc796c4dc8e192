import type { z } from 'zod';
import type { PlanList } from '../../../src/contract/schemas/account.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { conflict, invalidRequest, notFound } from '../../errors.js';
import type { PaidCharge, SubscriptionChange } from '../../payments/processor.js';
import { letGoOfDowngradeBy, type Processors } from '../../payments/processors.js';
import { creditsToMicro, microToCredits } from '../../store/money.js';
import type { BillingInterval, Store, SubscriptionRecord, Tier } from '../../store/types.js';
import type { PaymentsService, RedirectInput } from '../payments.js';
import { createOneAtATime } from './one-at-a-time.js';
import { prorate } from '../../payments/periods.js';
import { soldPlanMetadata } from '../../payments/events.js';
import { periodCredits, planRank, type Plan, type PlanCatalog } from '../../payments/plans.js';
import type { SubscriptionReports } from './reports.js';
import { describe, label, payerOf, present as presentAt, runningAt, subscriberKey, subscriberOf, subscriberScope, type Subscriber } from './state.js';

/** Whose mode decides which plans are on sale: a subscriber's, or a subscription's. */
type Mode = Pick<Subscriber, 'livemode'>;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * The subscriptions operations (ARCHITECTURE.md §6): none → active → active and canceling at the period
 * end → canceled. The processor owns the subscription: a change is asked of it, and the state it
 * answers is applied as its reports are (reports.ts). Every grant comes with a payment received:
 * an upgrade's with the charge the processor took for it, a period's with its paid invoice. Changes
 * to one subscriber's subscription run one at a time (one-at-a-time.ts).
 */
export function createSubscriptionsService(deps: {
  store: Store;
  clock: Clock;
  plans: PlanCatalog;
  processors: Processors;
  payments: PaymentsService;
  reports: SubscriptionReports;
}) {
  const { store, clock, plans, processors, payments, reports } = deps;
  /** The processor that runs this subscription: the live one, or the sandbox for test mode. */
  const processorOf = (sub: SubscriptionRecord) => processors.for(sub.livemode);
  const present = (sub: SubscriptionRecord | null) => presentAt(sub, clock.now());
  const oneAtATime = createOneAtATime(store.coordination);
  /** Runs a change to the caller's subscription after any other change to it has finished. */
  const changing = <T>(principal: Principal, work: () => Promise<T>) => oneAtATime(subscriberKey(subscriberOf(principal)), work);
  const changingRecord = <T>(sub: SubscriptionRecord, work: () => Promise<T>) => oneAtATime(subscriberKey(sub), work);

  /** The caller's subscription, in the caller's mode: test mode never sees a live subscription, nor the reverse. */
  const currentOf = (principal: Principal) => {
    const subscriber = subscriberOf(principal);
    return store.subscriptions.current(subscriberScope(subscriber), subscriber.address);
  };

  /** The caller's running subscription, or a 409 saying why there is none to change. */
  async function running(principal: Principal, operation: string): Promise<SubscriptionRecord> {
    const sub = await currentOf(principal);
    if (!sub || !runningAt(sub, clock.now())) {
      throw conflict(`${describe(sub, clock.now())}: nothing to ${operation}. Start one with create-checkout-session.`, 'no_active_subscription');
    }
    return sub;
  }

  function planFor(
    subscriber: Mode,
    input: { tier?: Tier | undefined; interval?: BillingInterval | undefined; price_id?: string | undefined },
  ): Plan {
    if (input.price_id !== undefined) {
      const plan = plans.byPriceId(input.price_id);
      if (!plan) throw invalidRequest(`Unknown price_id '${input.price_id}'; subscriptions plans lists them.`, 'price_id');
      return onSale(subscriber, plan);
    }
    if (!input.tier || !input.interval) {
      throw invalidRequest('Give tier and interval, or price_id.', input.tier ? 'interval' : 'tier', 'missing_field');
    }
    return onSale(subscriber, plans.find(input.tier, input.interval));
  }

  /** The plans a subscriber can buy: in test mode (the sandbox's) every one, live those priced at the processor. */
  const forSale = (subscriber: Mode) => (subscriber.livemode === false ? plans.all : plans.onSale);

  /** `plan`, when the subscriber can subscribe or change to it (live, not when its processor price is not configured). */
  function onSale(subscriber: Mode, plan: Plan): Plan {
    if (forSale(subscriber).includes(plan)) return plan;
    const others = forSale(subscriber).map(label).join(', ');
    throw conflict(
      `The ${label(plan)} plan is not on sale on this server${others ? ` (on sale: ${others})` : ''}; subscriptions plans lists those that are.`,
      'plan_not_on_sale',
    );
  }

  function openCheckout(owner: Subscriber & { developerId: string }, plan: Plan, input: RedirectInput, origin: string) {
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
        livemode: owner.livemode !== false,
      },
      input,
      origin,
      soldPlanMetadata(plan),
    );
  }

  async function change(sub: SubscriptionRecord, request: SubscriptionChange) {
    const state = await processorOf(sub).updateSubscription(sub, request);
    return (await reports.state(state, seconds(clock.now()))) ?? sub;
  }

  /**
   * The upgrade's charge in the billing history, with the credits it paid for granted in the same
   * transaction (keyed by the charge: once per upgrade). Returns the credits granted now.
   */
  async function recordUpgradeCharge(sub: SubscriptionRecord, to: Plan, charge: PaidCharge, creditsMicro: number, now: Date) {
    const invoice = {
      id: charge.invoiceId,
      subscriptionId: sub.id,
      developerId: sub.developerId,
      amountUsdCents: charge.amountPaidCents,
      creditsMicro,
      description: `${label(to)} plan, upgrade`,
      paidAt: now.toISOString(),
    };
    if (creditsMicro === 0) {
      await store.subscriptions.recordInvoice(invoice);
      return 0;
    }
    return (await store.checkout.recordPaidUpgrade(invoice, payerOf(sub))) ? creditsMicro : 0;
  }

  /**
   * Upgrades now. The processor charges the prorated difference first and changes the plan only
   * once it is paid (a declined payment is a 402 that changes nothing); the new plan's extra
   * credits for the rest of the period come with that charge, and without a charge there are none.
   */
  async function upgrade(principal: Principal, input: { tier: Tier; interval?: BillingInterval | undefined }) {
    const sub = await running(principal, 'upgrade');
    const now = clock.now();
    if (sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, now)}: renew it before upgrading.`, 'subscription_canceling');
    const from = plans.find(sub.tier, sub.interval);
    const to = onSale(sub, plans.find(input.tier, input.interval ?? sub.interval));
    if (planRank(to) <= planRank(from)) {
      throw conflict(`${describe(sub, now)}: an upgrade goes to a higher plan — a higher tier, or yearly from monthly (schedule-downgrade goes lower).`, 'not_an_upgrade');
    }
    const { state, charge } = await processorOf(sub)
      .changePlan(sub, to.priceId)
      .catch(async (error: unknown) => {
        // A failed upgrade leaves a planned downgrade standing, unless the processor let go of it
        // and could not plan it again: then it is dropped rather than shown.
        if (sub.scheduledDowngrade && letGoOfDowngradeBy(error)) await store.subscriptions.scheduleDowngrade(sub.id, null, now.toISOString());
        throw error;
      });
    const updated = (await reports.state(state, seconds(now))) ?? sub;
    const creditsMicro = Math.floor(
      prorate(
        { amount: creditsToMicro(periodCredits(from)), start: sub.currentPeriodStart, end: sub.currentPeriodEnd },
        { amount: creditsToMicro(periodCredits(to)), start: updated.currentPeriodStart, end: updated.currentPeriodEnd },
        now,
      ),
    );
    const granted = charge ? await recordUpgradeCharge(sub, to, charge, creditsMicro, now) : 0;
    const cleared = await store.subscriptions.scheduleDowngrade(sub.id, null, now.toISOString());
    return { ...present(cleared ?? updated), granted_credits: microToCredits(granted) };
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
    const session = await openCheckout(sub, onSale(sub, plans.find(sub.tier, sub.interval)), {}, origin);
    return { ...present(sub), checkout_session: session };
  }

  return {
    /** The plans the caller can subscribe to, in its mode. */
    plans(principal: Principal): z.input<typeof PlanList> {
      return {
        object: 'list',
        data: forSale(subscriberOf(principal)).map((plan) => ({
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
      const plan = planFor(subscriberOf(principal), input);
      const sub = await currentOf(principal);
      if (runningAt(sub, clock.now())) {
        throw conflict(`${describe(sub, clock.now())}. Use upgrade or schedule-downgrade to change plans.`, 'already_subscribed');
      }
      return openCheckout({ developerId: principal.developerId, ...subscriberOf(principal) }, plan, input, origin);
    },

    async portal(principal: Principal, input: { return_url?: string | undefined }, origin: string) {
      const sub = await currentOf(principal);
      if (!sub) throw conflict('You have no subscription: the customer portal manages one. Start one with create-checkout-session.', 'no_subscription');
      const session = await processorOf(sub).createPortal(sub, input.return_url ?? null, origin);
      return { id: session.id, object: 'portal.session' as const, url: session.url };
    },

    upgrade(principal: Principal, input: { tier: Tier; interval?: BillingInterval | undefined }) {
      return changing(principal, () => upgrade(principal, input));
    },

    scheduleDowngrade(principal: Principal, input: { tier: Tier; interval?: BillingInterval | undefined }) {
      return changing(principal, async () => {
        const sub = await running(principal, 'downgrade');
        const now = clock.now();
        if (sub.cancelAtPeriodEnd) throw conflict(`${describe(sub, now)}: renew it before scheduling a downgrade.`, 'subscription_canceling');
        const downgrade = { tier: input.tier, interval: input.interval ?? sub.interval };
        if (planRank(downgrade) >= planRank(sub)) {
          throw conflict(`${describe(sub, now)}: a downgrade goes to a lower plan — a lower tier, or monthly from yearly (upgrade goes higher).`, 'not_a_downgrade');
        }
        const { priceId } = onSale(sub, plans.find(downgrade.tier, downgrade.interval));
        await processorOf(sub).scheduleNextPeriod(sub, priceId);
        return present(await store.subscriptions.scheduleDowngrade(sub.id, { ...downgrade, priceId }, now.toISOString()));
      });
    },

    cancelScheduledDowngrade(principal: Principal) {
      return changing(principal, async () => {
        const sub = await running(principal, 'change');
        if (!sub.scheduledDowngrade) throw conflict(`${describe(sub, clock.now())}: no downgrade is scheduled.`, 'no_scheduled_downgrade');
        await processorOf(sub).scheduleNextPeriod(sub, null);
        return present(await store.subscriptions.scheduleDowngrade(sub.id, null, clock.now().toISOString()));
      });
    },

    cancel(principal: Principal) {
      return changing(principal, async () => present(await cancel(await running(principal, 'cancel'))));
    },

    /** Lifts a pending cancel; after the end, opens a checkout for the same plan. */
    renew(principal: Principal, origin: string) {
      return changing(principal, async () => renew(await currentOf(principal), origin));
    },

    /**
     * Ends the subscriptions of an app and of its users now, before the app is deleted: a
     * processor would otherwise go on charging for an app that no longer exists.
     */
    async endAllOf(appUuid: string): Promise<void> {
      for (const sub of await store.subscriptions.activeForApp(appUuid)) {
        await reports.state(await processorOf(sub).cancelNow(sub), seconds(clock.now()));
      }
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
      const { subscription: before } = await this.portalSession(id);
      return changingRecord(before, async () => {
        // Read again once it is this change's turn: another may have changed it meanwhile.
        const { session, subscription } = await this.portalSession(id);
        if (action === 'renew') return { returnUrl: session.returnUrl, ...(await renew(subscription, origin)) };
        if (!runningAt(subscription, clock.now())) throw conflict(`${describe(subscription, clock.now())}: nothing to cancel.`, 'no_active_subscription');
        return { returnUrl: session.returnUrl, ...present(await cancel(subscription)), checkout_session: null };
      });
    },

    /** The sandbox portal's card form: the customer's later payments are charged to this test card. */
    async portalCard(id: string, card: string) {
      const { session, subscription } = await this.portalSession(id);
      await processors.sandbox.attachCard(subscription, card);
      return { returnUrl: session.returnUrl, ...present(subscription) };
    },
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
