import type { Plan, Subscription } from '../../src/tui/dashboard/api.js';

/** Plans and subscriptions in the contract's shapes, for the subscription screen's tests. */

export const plan = (tier: Plan['tier'], interval: Plan['interval'], price = 1, credits = 1): Plan => ({
  tier,
  interval,
  price_usd: price,
  price_id: `price_${tier}_${interval}`,
  monthly_credits: credits,
  features: [`${tier} models`, 'email support'],
});

export const PLANS = [plan('starter', 'month', 9, 1000), plan('starter', 'year', 90, 1000), plan('pro', 'month', 29, 5000), plan('pro', 'year', 290, 5000)];

export const NO_SUBSCRIPTION: Subscription = {
  tier: null,
  interval: null,
  status: 'none',
  current_period_start: null,
  current_period_end: null,
  cancel_at_period_end: false,
  scheduled_downgrade: null,
};

/** A subscription running from 2026-03-01 to 2026-04-01. */
export const active = (tier: Plan['tier'], interval: Plan['interval'], over: Partial<Subscription> = {}): Subscription => ({
  tier,
  interval,
  status: 'active',
  current_period_start: '2026-03-01T00:00:00.000Z',
  current_period_end: '2026-04-01T00:00:00.000Z',
  cancel_at_period_end: false,
  scheduled_downgrade: null,
  ...over,
});
