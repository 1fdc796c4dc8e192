import type { z } from 'zod';
import type { SubscriptionStatus } from '../../../src/contract/schemas/account.js';
import { isTestMode, type Principal } from '../../auth/principal.js';
import type { AppScope, BillingInterval, Payer, SubscriptionRecord, Tier } from '../../store/types.js';

/** Who subscribes: the app (an API key's caller, address '') or one of its users. */
export interface Subscriber {
  appUuid: string;
  address: string;
  /** False for test mode: the credits are play money, in the test balance. */
  livemode?: boolean;
}

export const subscriberOf = (principal: Principal): Subscriber => ({
  appUuid: principal.app.appUuid,
  address: principal.kind === 'user' ? principal.address : '',
  livemode: !isTestMode(principal),
});

export const subscriberKey = (subscriber: Subscriber) => `${subscriberScope(subscriber).livemode ? '' : 'test:'}${subscriber.appUuid}/${subscriber.address}`;

/** Where the subscriber's subscriptions are kept: its app, in its mode (live unless it says test). */
export const subscriberScope = (subscriber: Subscriber): AppScope => ({ appUuid: subscriber.appUuid, livemode: subscriber.livemode !== false });

/** The account a subscription's credits go to. */
export const payerOf = (subscriber: Subscriber): Payer => {
  const test = subscriber.livemode === false;
  return subscriber.address === ''
    ? { kind: 'app', appUuid: subscriber.appUuid, test }
    : { kind: 'user', appUuid: subscriber.appUuid, address: subscriber.address, test };
};

export const label = (plan: { tier: Tier; interval: BillingInterval }) => `${plan.tier} (${plan.interval})`;

/** Whether a subscription still runs at `now`: a cancel at the period end counts once the end has passed. */
export const runningAt = (sub: SubscriptionRecord | null, now: Date): boolean =>
  sub !== null && sub.status === 'active' && !(sub.cancelAtPeriodEnd && Date.parse(sub.currentPeriodEnd) <= now.getTime());

/** The state, in words, for the 409s that refuse an operation. */
export function describe(sub: SubscriptionRecord | null, now: Date): string {
  if (!sub) return 'You have no subscription';
  if (!runningAt(sub, now)) return `Your ${label(sub)} subscription ended on ${sub.currentPeriodEnd}`;
  if (sub.cancelAtPeriodEnd) return `Your ${label(sub)} subscription is canceled from the period end (${sub.currentPeriodEnd})`;
  const downgrade = sub.scheduledDowngrade ? `, with a downgrade to ${label(sub.scheduledDowngrade)} scheduled then` : '';
  return `You are on ${label(sub)} until ${sub.currentPeriodEnd}${downgrade}`;
}

/** The subscription as `subscriptions status` shows it at `now`. */
export function present(sub: SubscriptionRecord | null, now: Date): z.input<typeof SubscriptionStatus> {
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
      running && sub.scheduledDowngrade
        ? { tier: sub.scheduledDowngrade.tier, interval: sub.scheduledDowngrade.interval, effective_at: sub.currentPeriodEnd }
        : null,
  };
}
