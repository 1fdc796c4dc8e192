import { z } from 'zod';
import { KEY_ROLES } from '../operation.js';
import { Address, AppUuid, Credits, Deleted, NonNegativeCredits, PlainText, PositiveCredits, Timestamp, TimestampInput } from './common.js';

export const AppType = z.enum(['standard', 'pooled_api']);

/** A CORS origin: scheme, host and optional port, nothing else (no path, no trailing slash). */
export const Origin = z
  .string()
  .regex(/^https?:\/\/[^/\s?#]+$/, 'must be an origin such as https://example.com (no path)')
  .describe('A CORS origin, e.g. https://example.com');

/**
 * A budget window: a UTC calendar window, or a duration that starts at the first spend after the
 * last window ended. The server reads it with server/services/budgets.ts.
 */
export const BUDGET_PERIOD_PATTERN = /^(day|week|month|[1-9][0-9]{0,5}[smhd])$/;
const BudgetPeriod = z
  .string()
  .regex(BUDGET_PERIOD_PATTERN, 'must be day, week, month or a duration such as 30s, 15m, 12h, 7d')
  .describe('day, week, month (UTC calendar windows, weeks from Monday) or a duration (30s, 15m, 12h, 7d; a window starts at the first spend)');

/** A budget amount as bodies accept it: credits per period, null removing the budget. */
const BudgetCredits = (what: string) => NonNegativeCredits.nullable().optional().describe(`${what} (null: no budget)`);

export const App = z.object({
  app_uuid: z.uuid(),
  name: z.string(),
  app_type: AppType,
  default_user_credits: Credits,
  allowed_origins: z.array(z.string()),
  balance_credits: Credits,
  held_credits: Credits,
  idp_configured: z.boolean(),
  idp_app_id: z.string().nullable(),
  rate_limit_rpm: z.number().int().nullable().describe('Requests per minute per key or user (null: the server default)'),
  rate_limit_tpm: z.number().int().nullable().describe('Tokens per minute per key or user (null: the server default)'),
  user_claims: z.boolean().describe('Whether the app pays its users’ daily claims and task rewards from its balance'),
  user_budget_credits: Credits.nullable().describe('Most each end user may spend per user_budget_period, unless their own budget says otherwise (null: none)'),
  user_budget_period: z.string().nullable().describe('The period of the users’ default budget (null: none)'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const AppName = PlainText(100, { trim: true }).min(1).describe('App name');

const RateLimit = (what: string) =>
  z.number().int().positive().max(1_000_000_000).nullish().describe(`${what} per minute per key or user (null: the server default)`);

/** An app's default budget for its end users, as create and update accept it. */
const userBudget = {
  user_budget_credits: BudgetCredits('Most each end user may spend per user_budget_period, unless their own budget says otherwise'),
  user_budget_period: BudgetPeriod.optional(),
};

const UserClaims = z
  .boolean()
  .describe('Whether users may claim daily credits and task rewards, paid from the app’s balance (default true)');

export const AppCreateBody = z.strictObject({
  name: AppName,
  app_type: AppType.default('standard').describe('standard (default) or pooled_api'),
  default_user_credits: NonNegativeCredits.default(0).describe('Credits granted to each new user'),
  allowed_origins: z.array(Origin).max(100).default([]).describe('Allowed CORS origins for API-key requests'),
  rate_limit_rpm: RateLimit('Requests'),
  rate_limit_tpm: RateLimit('Tokens'),
  user_claims: UserClaims.default(true),
  ...userBudget,
});

export const AppUpdateBody = z.strictObject({
  name: AppName.optional(),
  default_user_credits: NonNegativeCredits.optional().describe('Credits granted to each new user'),
  allowed_origins: z
    .array(Origin)
    .max(100)
    .nullish()
    .describe('Omitted or null: unchanged; []: clear; a list: set'),
  rate_limit_rpm: RateLimit('Requests').describe('Requests per minute per key or user (omitted: unchanged; null: the server default)'),
  rate_limit_tpm: RateLimit('Tokens').describe('Tokens per minute per key or user (omitted: unchanged; null: the server default)'),
  user_claims: UserClaims.optional(),
  ...userBudget,
});

/**
 * An app holding credits is deleted only when its developer says where they go: nothing is lost
 * without being asked for.
 */
export const AppDeleteBody = z.strictObject({
  move_balance_to: AppUuid.optional().describe(
    'Another of your apps: the app’s balance (live and test) moves there before it is deleted',
  ),
  force: z
    .boolean()
    .default(false)
    .describe(
      'Delete even though the app holds credits: they move to your oldest other app, or, from your last app, back to the operator (test credits are dropped)',
    ),
});

/** Where a deleted app's credits went: another app of the developer, or back to the operator. */
export const AppDeleted = Deleted.extend({
  balance_moved: z
    .object({
      to: z.enum(['app', 'operator']),
      app_uuid: z.uuid().nullable().describe('The app that received them (null: the operator)'),
      credits: Credits.describe('Live credits moved'),
      test_credits: Credits.describe('Test credits moved to the app’s test balance (dropped when they went to the operator)'),
    })
    .nullable()
    .describe('null when the app held no credits'),
});

export const KeyRoleSchema = z
  .enum(KEY_ROLES)
  .describe('inference: inference and its own app only; read_only: reads every object of the developer; admin: everything');

export const ApiKey = z.object({
  key_id: z.string(),
  name: z.string(),
  is_test: z.boolean(),
  role: KeyRoleSchema,
  prefix: z.string(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  budget_credits: Credits.nullable().describe('Most the key may spend per budget period (null: no budget)'),
  budget_period: z.string().nullable().describe('day, week, month (UTC calendar windows, weeks from Monday) or a duration (30s, 15m, 12h, 7d)'),
  budget_spent_credits: Credits.nullable().describe('Spent in the current window (null: no budget)'),
  budget_resets_at: Timestamp.nullable().describe('When the current window ends (null: no budget, or a duration window not started)'),
  expires_at: Timestamp.nullable().describe('From this instant the key is refused (null: never)'),
});

/** Budget and expiry, as create and update accept them. */
const keyLimits = {
  budget_credits: BudgetCredits('Most the key may spend per budget period'),
  budget_period: BudgetPeriod.optional(),
  expires_at: TimestampInput.nullable().optional().describe('From this instant the key is refused (RFC 3339; null: never)'),
};

export const CreatedApiKey = ApiKey.extend({
  secret: z.string().describe('The key itself; shown only once'),
});

export const ApiKeyCreateBody = z.strictObject({
  name: PlainText(100, { trim: true }).min(1).default('default').describe('Key name'),
  is_test: z.boolean().default(false).describe('A test key (svc_test_): sandbox only, never charged; never admin'),
  role: KeyRoleSchema.default('inference').describe(
    'inference (default): inference and its own app only; read_only: reads of every app, key, user, usage and billing; admin: everything',
  ),
  ...keyLimits,
});

/** Omitted: unchanged; budget_credits null removes the budget. A changed budget starts a fresh window. */
export const ApiKeyUpdateBody = z.strictObject(keyLimits);

export const ApiKeyParams = z.strictObject({ app_uuid: AppUuid, key_id: z.string().regex(/^key_[A-Za-z0-9]+$/, 'must be a key id (key_…)') });

/** The calling key, in OpenRouter's shape (`GET /key`); amounts in credits. */
export const CurrentKey = z.object({
  data: z.object({
    key_id: z.string(),
    label: z.string().describe('The key’s name'),
    role: KeyRoleSchema,
    is_test: z.boolean(),
    limit: Credits.nullable().describe('Budget per period (null: none)'),
    usage: Credits.describe('Spent in the current budget window (0 without a budget)'),
    limit_remaining: Credits.nullable().describe('Left in the current window, beside what requests in flight hold (null: no budget)'),
    limit_reset: z.string().nullable().describe('The budget period: day, week, month or a duration (null: no budget)'),
    limit_resets_at: Timestamp.nullable().describe('When the current window ends'),
    expires_at: Timestamp.nullable(),
  }),
});

export const IdpConfig = z.object({
  app_uuid: z.uuid(),
  idp_app_id: z.string(),
  key_fingerprint: z.string().describe('SHA-256 of the verification key (SPKI DER), hex'),
  updated_at: Timestamp,
});

export const IdpCreateBody = z.strictObject({
  idp_app_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9._:-]+$/, 'may contain letters, digits, ".", "_", ":" and "-"')
    .describe('App ID at the identity provider'),
  idp_verification_key: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Verification key for identity tokens (PEM, SPKI public key); not needed for a sandbox_ id, whose tokens this server signs'),
});

export const AppUser = z.object({
  address: z.string(),
  credits: Credits.describe('Spendable balance'),
  credit_limit: Credits.nullable().describe('Most the user may spend of a pooled app (null: no limit)'),
  spent_credits: Credits,
  budget_credits: Credits.nullable().describe('Most the user may spend per budget period: their own budget, else the app’s default (null: none)'),
  budget_period: z.string().nullable().describe('day, week, month (UTC) or a duration (null: no budget)'),
  budget_source: z.enum(['user', 'app']).nullable().describe('Whose budget applies: the user’s own, or the app’s default for its users (null: none)'),
  budget_spent_credits: Credits.nullable().describe('Spent in the current window (null: no budget)'),
  budget_resets_at: Timestamp.nullable().describe('When the current window ends (null: no budget, or a duration window not started)'),
  created_at: Timestamp,
});

export const AppUserParams = z.strictObject({ app_uuid: AppUuid, address: Address });

export const UserTopUpBody = z.strictObject({ credits: PositiveCredits.describe('Credits to add') });
/** Omitted: unchanged. A changed budget starts a fresh window. */
export const UserUpdateBody = z.strictObject({
  credits: NonNegativeCredits.nullable().optional().describe('The user’s credit limit on a pooled app (null removes it)'),
  budget_credits: BudgetCredits('The user’s own budget per budget_period, overriding the app’s default for its users'),
  budget_period: BudgetPeriod.optional(),
});
