import { z } from 'zod';
import { CheckoutSession, Credits, PlainText, PositiveCredits, RedirectUrl, Timestamp } from './common.js';

export const Balance = z.object({
  credits: Credits.describe('Spendable balance'),
  held_credits: Credits.describe('Held by requests in flight'),
  livemode: z.boolean().describe('false for a test key or a sandbox user: the test balance, play money apart from the live one'),
});

export const ClaimResult = z.object({
  granted_credits: Credits,
  credits: Credits.describe('Balance after the claim'),
  next_claim_at: Timestamp.nullable(),
});

export const ClaimTaskBody = z.strictObject({
  task_type: z.string().min(1).max(100).describe('A task type from `tasks list`'),
  memories: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe('How many memories the caller has saved (for memory tasks)'),
});

export const CreditPack = z.object({
  id: z.string(),
  credits: Credits,
  price_usd: z.number(),
  price_id: z.string(),
});

export const PackList = z.object({ object: z.literal('list'), data: z.array(CreditPack) });

export const PurchaseBody = z.strictObject({
  credits: PositiveCredits.describe('Credits to buy: a pack amount or a free amount above the minimum'),
  success_url: RedirectUrl.optional().describe('Redirect after payment'),
  cancel_url: RedirectUrl.optional().describe('Redirect if payment is cancelled'),
  referral: PlainText(200).optional().describe('Affiliate referral ID'),
});

export const PointsSync = z.object({
  points: z.number(),
  converted_points: z.number(),
  granted_credits: Credits,
  credits: Credits,
});

export const BillingRecord = z.object({
  id: z.string(),
  kind: z.enum(['credit_pack', 'app_funding', 'subscription']),
  description: z.string(),
  amount_usd: z.number(),
  credits: Credits.nullable(),
  status: z.enum(['pending', 'paid', 'canceled', 'failed']),
  created_at: Timestamp,
  paid_at: Timestamp.nullable(),
});

export const Task = z.object({
  type: z.string(),
  title: z.string(),
  reward_credits: Credits,
  requirement: z.string(),
  claimed: z.boolean(),
});
export const TaskList = z.object({ object: z.literal('list'), data: z.array(Task) });

export const Tier = z.enum(['starter', 'pro']);
export const Interval = z.enum(['month', 'year']);

export const Plan = z.object({
  tier: Tier,
  interval: Interval,
  price_usd: z.number(),
  price_id: z.string(),
  monthly_credits: Credits,
  features: z.array(z.string()),
});
export const PlanList = z.object({ object: z.literal('list'), data: z.array(Plan) });

export const SubscriptionStatus = z.object({
  tier: Tier.nullable(),
  interval: Interval.nullable(),
  status: z.enum(['none', 'active', 'canceled']),
  current_period_start: Timestamp.nullable(),
  current_period_end: Timestamp.nullable(),
  cancel_at_period_end: z.boolean(),
  scheduled_downgrade: z.object({ tier: Tier, interval: Interval, effective_at: Timestamp }).nullable(),
});

export const UpgradeResult = SubscriptionStatus.extend({
  granted_credits: Credits.describe('Credits granted now: the new plan’s extra credits for the rest of the period'),
});

export const RenewResult = SubscriptionStatus.extend({
  checkout_session: CheckoutSession.nullable().describe('After the end: the checkout that starts the plan again'),
});

export const CheckoutSessionBody = z.strictObject({
  tier: Tier.optional().describe('starter or pro (or give price_id)'),
  interval: Interval.optional().describe('month or year'),
  price_id: z.string().min(1).optional().describe('A plan price id, in place of tier and interval'),
  success_url: RedirectUrl.optional(),
  cancel_url: RedirectUrl.optional(),
  referral: PlainText(200).optional(),
});

export const PortalBody = z.strictObject({ return_url: RedirectUrl.optional() });
export const PortalSession = z.object({ id: z.string(), object: z.literal('portal.session'), url: z.string() });

export const TierChangeBody = z.strictObject({
  tier: Tier.describe('Target tier'),
  interval: Interval.optional().describe('month or year (default: the current interval)'),
});

export const WebhookAck = z.object({ received: z.literal(true) });
