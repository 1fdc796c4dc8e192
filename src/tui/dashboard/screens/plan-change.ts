import type { Plan, Subscription } from '../api.js';

/**
 * What choosing a plan means for a subscription: a first checkout, an upgrade now, a downgrade
 * at the period end, or nothing. A higher tier is an upgrade; within a tier, yearly is above
 * monthly.
 */
export type PlanChange = 'checkout' | 'upgrade' | 'downgrade' | 'current';

const TIERS = ['starter', 'pro'];
const INTERVALS = ['month', 'year'];

const rank = (tier: string, interval: string) => TIERS.indexOf(tier) * INTERVALS.length + INTERVALS.indexOf(interval);

export function planChange(status: Subscription, plan: Plan): PlanChange {
  if (status.status !== 'active' || status.tier === null) return 'checkout';
  const from = rank(status.tier, status.interval ?? 'month');
  const to = rank(plan.tier, plan.interval);
  return to > from ? 'upgrade' : to < from ? 'downgrade' : 'current';
}

export const planName = (plan: { tier: string; interval: string }) =>
  `${plan.tier[0]?.toUpperCase() ?? ''}${plan.tier.slice(1)} · ${plan.interval === 'year' ? 'yearly' : 'monthly'}`;
