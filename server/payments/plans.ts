import type { BillingInterval, Tier } from '../store/types.js';

export interface Plan {
  tier: Tier;
  interval: BillingInterval;
  priceUsdCents: number;
  priceId: string;
  /** Credits granted for each month the plan runs (a year plan: twelve months' worth at once). */
  monthlyCredits: number;
  /** How many times the default rate limits (requests and tokens per minute) the subscriber gets. */
  rateLimitMultiplier: number;
  features: string[];
  /**
   * Whether it can be subscribed to, changed to or renewed live: always in the sandbox; with a
   * real processor only when its price there is configured (a made-up price id would fail at the
   * processor, in the customer's checkout). Test mode, the sandbox's, sells every plan.
   */
  onSale: boolean;
}

export const TIERS: readonly Tier[] = ['starter', 'pro'];
const TIER_RANK: Record<Tier, number> = { starter: 1, pro: 2 };
const INTERVAL_RANK: Record<BillingInterval, number> = { month: 0, year: 1 };
/** Plans in order: by tier, and within a tier yearly above monthly. Upgrades go up, downgrades down. */
export const planRank = (plan: { tier: Tier; interval: BillingInterval }) => TIER_RANK[plan.tier] * 2 + INTERVAL_RANK[plan.interval];

const MONTHS: Record<BillingInterval, number> = { month: 1, year: 12 };
export const monthsIn = (interval: BillingInterval) => MONTHS[interval];

/** The credits one period of a plan grants. */
export const periodCredits = (plan: Plan) => plan.monthlyCredits * monthsIn(plan.interval);

const STARTER = { tier: 'starter', monthlyCredits: 1_000, rateLimitMultiplier: 2 } as const;
const PRO = { tier: 'pro', monthlyCredits: 4_000, rateLimitMultiplier: 5 } as const;
const BASE: Omit<Plan, 'priceId' | 'onSale'>[] = [
  { ...STARTER, interval: 'month', priceUsdCents: 900, features: ['1,000 credits a month', 'rate limits ×2'] },
  { ...STARTER, interval: 'year', priceUsdCents: 9_000, features: ['12,000 credits a year, granted at the start', 'rate limits ×2', 'two months free'] },
  { ...PRO, interval: 'month', priceUsdCents: 2_900, features: ['4,000 credits a month', 'rate limits ×5'] },
  { ...PRO, interval: 'year', priceUsdCents: 29_000, features: ['48,000 credits a year, granted at the start', 'rate limits ×5', 'two months free'] },
];

/** The variable that configures a plan's price at a real processor (e.g. STRIPE_PRICE_PRO_MONTH). */
export type PlanPriceVariable = `STRIPE_PRICE_${Uppercase<Tier>}_${Uppercase<BillingInterval>}`;
const priceVariable = (plan: { tier: Tier; interval: BillingInterval }) =>
  `STRIPE_PRICE_${plan.tier.toUpperCase() as Uppercase<Tier>}_${plan.interval.toUpperCase() as Uppercase<BillingInterval>}` as const;

/** Every plan's price variable, for the server's environment schema to check at start. */
export const PLAN_PRICE_VARIABLES: readonly PlanPriceVariable[] = BASE.map(priceVariable);

/**
 * The plans. Price ids are ours in the sandbox; a real processor (`realPrices`) has its own,
 * configured as `STRIPE_PRICE_<TIER>_<INTERVAL>` (checked at start: server/environment.ts), and a
 * plan whose price is not configured is not on sale there (`unpriced` names its variable).
 */
export function createPlanCatalog(env: Partial<Record<PlanPriceVariable, string>> = {}, options: { realPrices?: boolean } = {}) {
  const plans: Plan[] = BASE.map((plan) => {
    const configured = env[priceVariable(plan)];
    return { ...plan, priceId: configured ?? `price_svc_${plan.tier}_${plan.interval}`, onSale: !options.realPrices || configured !== undefined };
  });
  const find = (tier: Tier, interval: BillingInterval) => plans.find((p) => p.tier === tier && p.interval === interval) as Plan;
  return {
    /** Every plan, on sale or not. */
    all: plans,
    /** The plans on sale live. */
    onSale: plans.filter((plan) => plan.onSale),
    /** The price variables of the plans not on sale. */
    unpriced: plans.filter((plan) => !plan.onSale).map(priceVariable),
    find,
    byPriceId: (priceId: string) => plans.find((p) => p.priceId === priceId) ?? null,
    /**
     * The price a downgrade planned at the processor goes on at: the one it was planned with (its
     * plan may have been taken off sale since, its price still the processor's), else its plan's
     * while on sale; null when neither is known.
     */
    plannedPrice(planned: { tier: Tier; interval: BillingInterval; priceId: string | null }): string | null {
      const plan = find(planned.tier, planned.interval);
      return planned.priceId ?? (plan.onSale ? plan.priceId : null);
    },
  };
}

export type PlanCatalog = ReturnType<typeof createPlanCatalog>;
