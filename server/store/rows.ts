import type { KeyRole } from '../../src/contract/operation.js';
import type {
  ApiKeyRecord,
  AppRecord,
  AppType,
  AppUserRecord,
  BillingInterval,
  CheckoutSessionRecord,
  SigningKeyRecord,
  StoredResponse,
  SubscriptionRecord,
  TextChannel,
  TextRegistrationRecord,
  Tier,
} from './types.js';

/**
 * Column lists and row mappers shared by the repositories of both stores. A flag is 0/1 in SQLite
 * and a boolean in PostgreSQL; what is held is kept in memory by one and in the row by the other,
 * so the caller passes it.
 */

/** A flag column as SQLite (0/1) or PostgreSQL (boolean) returns it. */
export type Flag = number | boolean;
export const isSet = (flag: Flag) => flag === true || flag === 1;
/** A boolean as SQLite stores it (better-sqlite3 binds no booleans). */
export const flag = (value: boolean): 0 | 1 => (value ? 1 : 0);

export const APP_COLUMNS = `a.app_uuid, a.developer_id, a.name, a.app_type, a.default_user_credits_micro,
  a.allowed_origins, a.idp_app_id, a.idp_verification_key, a.idp_updated_at, a.rate_limit_rpm, a.rate_limit_tpm, a.user_claims, a.created_at, a.updated_at,
  a.user_budget_credits_micro, a.user_budget_period, acc.balance_micro, acc.id AS account_id`;
export const APP_FROM = 'apps a JOIN accounts acc ON acc.id = a.account_id';

export interface AppRow {
  app_uuid: string;
  developer_id: string;
  name: string;
  app_type: AppType;
  default_user_credits_micro: number;
  allowed_origins: string;
  idp_app_id: string | null;
  idp_verification_key: string | null;
  idp_updated_at: string | null;
  rate_limit_rpm: number | null;
  rate_limit_tpm: number | null;
  user_claims: Flag;
  created_at: string;
  updated_at: string;
  user_budget_credits_micro: number | null;
  user_budget_period: string | null;
  balance_micro: number;
  account_id: number;
}

export function toApp(row: AppRow, heldMicro: number): AppRecord {
  return {
    appUuid: row.app_uuid,
    developerId: row.developer_id,
    name: row.name,
    appType: row.app_type,
    defaultUserCreditsMicro: row.default_user_credits_micro,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    idpAppId: row.idp_app_id,
    idpVerificationKey: row.idp_verification_key,
    idpUpdatedAt: row.idp_updated_at,
    rateLimitRpm: row.rate_limit_rpm,
    rateLimitTpm: row.rate_limit_tpm,
    userClaims: isSet(row.user_claims),
    userBudget:
      row.user_budget_credits_micro === null || row.user_budget_period === null
        ? null
        : { limitMicro: row.user_budget_credits_micro, period: row.user_budget_period },
    balanceMicro: row.balance_micro,
    heldMicro,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const KEY_COLUMNS = `k.key_id, k.app_uuid, k.name, k.is_test, k.role, k.prefix, k.created_at, k.last_used_at,
  k.budget_credits_micro, k.budget_period, k.expires_at, k.budget_window_start, k.budget_spent_micro`;

export interface KeyRow {
  key_id: string;
  app_uuid: string;
  name: string;
  is_test: Flag;
  role: KeyRole;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  budget_credits_micro: number | null;
  budget_period: string | null;
  expires_at: string | null;
  budget_window_start: string | null;
  budget_spent_micro: number;
}

export function toKey(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    appUuid: row.app_uuid,
    name: row.name,
    isTest: isSet(row.is_test),
    role: row.role,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    budget: row.budget_credits_micro === null || row.budget_period === null
      ? null
      : { limitMicro: row.budget_credits_micro, period: row.budget_period, windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro },
    expiresAt: row.expires_at,
  };
}

export const USER_COLUMNS = `u.app_uuid, u.livemode, u.address, u.credit_limit_micro, u.spent_micro, u.created_at,
  u.budget_credits_micro, u.budget_period, u.budget_window_start, u.budget_spent_micro, acc.balance_micro, acc.id AS account_id`;
export const USER_FROM = 'app_users u JOIN accounts acc ON acc.id = u.account_id';

export interface UserRow {
  app_uuid: string;
  livemode: Flag;
  address: string;
  credit_limit_micro: number | null;
  spent_micro: number;
  created_at: string;
  budget_credits_micro: number | null;
  budget_period: string | null;
  budget_window_start: string | null;
  budget_spent_micro: number;
  balance_micro: number;
  account_id: number;
}

export function toUser(row: UserRow, heldMicro: number): AppUserRecord {
  return {
    appUuid: row.app_uuid,
    address: row.address,
    livemode: isSet(row.livemode),
    balanceMicro: row.balance_micro,
    heldMicro,
    creditLimitMicro: row.credit_limit_micro,
    spentMicro: row.spent_micro,
    budget: row.budget_credits_micro === null || row.budget_period === null ? null : { limitMicro: row.budget_credits_micro, period: row.budget_period },
    budgetWindow: { windowStart: row.budget_window_start, spentMicro: row.budget_spent_micro },
    createdAt: row.created_at,
  };
}

export interface CheckoutRow {
  id: string;
  kind: CheckoutSessionRecord['kind'];
  developer_id: string;
  app_uuid: string;
  address: string | null;
  credits_micro: number;
  amount_usd_cents: number;
  description: string;
  status: CheckoutSessionRecord['status'];
  success_url: string | null;
  cancel_url: string | null;
  referral: string | null;
  created_at: string;
  paid_at: string | null;
  expires_at: string;
  price_id: string | null;
  livemode: Flag;
}

export const toCheckoutSession = (row: CheckoutRow): CheckoutSessionRecord => ({
  id: row.id,
  kind: row.kind,
  developerId: row.developer_id,
  appUuid: row.app_uuid,
  address: row.address,
  creditsMicro: row.credits_micro,
  amountUsdCents: row.amount_usd_cents,
  description: row.description,
  status: row.status,
  successUrl: row.success_url,
  cancelUrl: row.cancel_url,
  referral: row.referral,
  createdAt: row.created_at,
  paidAt: row.paid_at,
  expiresAt: row.expires_at,
  priceId: row.price_id,
  livemode: isSet(row.livemode),
});

export interface SubscriptionRow {
  id: string;
  developer_id: string;
  app_uuid: string;
  address: string;
  customer_id: string | null;
  tier: Tier;
  interval: BillingInterval;
  status: SubscriptionRecord['status'];
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: Flag;
  price_id: string | null;
  scheduled_tier: Tier | null;
  scheduled_interval: BillingInterval | null;
  scheduled_price_id: string | null;
  state_version: number;
  created_at: string;
  updated_at: string;
  livemode: Flag;
}

export const toSubscription = (row: SubscriptionRow): SubscriptionRecord => ({
  id: row.id,
  developerId: row.developer_id,
  appUuid: row.app_uuid,
  address: row.address,
  customerId: row.customer_id,
  tier: row.tier,
  interval: row.interval,
  status: row.status,
  currentPeriodStart: row.current_period_start,
  currentPeriodEnd: row.current_period_end,
  cancelAtPeriodEnd: isSet(row.cancel_at_period_end),
  priceId: row.price_id,
  scheduledDowngrade:
    row.scheduled_tier && row.scheduled_interval
      ? { tier: row.scheduled_tier, interval: row.scheduled_interval, priceId: row.scheduled_price_id }
      : null,
  stateVersion: row.state_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  livemode: isSet(row.livemode),
});

export interface ResponseRow {
  id: string;
  app_uuid: string;
  address: string | null;
  livemode: Flag;
  status: string;
  body: string;
  input: string | null;
  upstream_id: string | null;
  created_at: string;
  expires_at: string;
}

export const toResponse = (row: ResponseRow): StoredResponse => ({
  id: row.id,
  appUuid: row.app_uuid,
  address: row.address,
  livemode: isSet(row.livemode),
  status: row.status,
  body: JSON.parse(row.body) as Record<string, unknown>,
  input: row.input ? (JSON.parse(row.input) as Record<string, unknown>[]) : [],
  upstreamId: row.upstream_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export interface TextRow {
  channel: TextChannel;
  identifier: string;
  app_uuid: string;
  livemode: Flag;
  owner: string;
  preferred_model: string | null;
  created_at: string;
  updated_at: string;
}

export const toRegistration = (row: TextRow): TextRegistrationRecord => ({
  channel: row.channel,
  identifier: row.identifier,
  appUuid: row.app_uuid,
  livemode: isSet(row.livemode),
  owner: row.owner,
  preferredModel: row.preferred_model,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_jwk: string;
  private_jwk: string;
  created_at: string;
}

export const toSigningKey = (row: SigningKeyRow): SigningKeyRecord => ({
  kid: row.kid,
  algorithm: row.algorithm,
  publicJwk: JSON.parse(row.public_jwk) as Record<string, unknown>,
  privateJwk: JSON.parse(row.private_jwk) as Record<string, unknown>,
  createdAt: row.created_at,
});

/** The row of a registration replacing the owner's `previous` one: the same identifier keeps its first registration time. */
export const registrationRow = (
  registration: Omit<TextRegistrationRecord, 'createdAt' | 'updatedAt'>,
  previous: TextRow | undefined,
  at: string,
): TextRow => ({
  channel: registration.channel,
  identifier: registration.identifier,
  app_uuid: registration.appUuid,
  livemode: registration.livemode,
  owner: registration.owner,
  preferred_model: registration.preferredModel,
  created_at: previous?.identifier === registration.identifier ? previous.created_at : at,
  updated_at: at,
});
