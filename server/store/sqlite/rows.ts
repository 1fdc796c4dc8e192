import type { Holds } from './holds.js';
import type { KeyRole } from '../../../src/contract/operation.js';
import type { ApiKeyRecord, AppRecord, AppType, AppUserRecord } from '../types.js';

/** Column lists and row mappers shared by the repositories. */

export const APP_COLUMNS = `a.app_uuid, a.developer_id, a.name, a.app_type, a.default_user_credits_micro,
  a.allowed_origins, a.idp_app_id, a.idp_verification_key, a.idp_updated_at, a.rate_limit_rpm, a.rate_limit_tpm, a.user_claims, a.created_at, a.updated_at,
  acc.balance_micro, acc.id AS account_id`;
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
  user_claims: number;
  created_at: string;
  updated_at: string;
  balance_micro: number;
  account_id: number;
}

export function toApp(row: AppRow, holds: Holds): AppRecord {
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
    userClaims: row.user_claims === 1,
    balanceMicro: row.balance_micro,
    heldMicro: holds.of(row.account_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const KEY_COLUMNS = 'k.key_id, k.app_uuid, k.name, k.is_test, k.role, k.prefix, k.created_at, k.last_used_at';

export interface KeyRow {
  key_id: string;
  app_uuid: string;
  name: string;
  is_test: number;
  role: KeyRole;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export function toKey(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    appUuid: row.app_uuid,
    name: row.name,
    isTest: row.is_test === 1,
    role: row.role,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export const USER_COLUMNS = `u.app_uuid, u.address, u.credit_limit_micro, u.spent_micro, u.created_at,
  acc.balance_micro, acc.id AS account_id`;
export const USER_FROM = 'app_users u JOIN accounts acc ON acc.id = u.account_id';

export interface UserRow {
  app_uuid: string;
  address: string;
  credit_limit_micro: number | null;
  spent_micro: number;
  created_at: string;
  balance_micro: number;
  account_id: number;
}

export function toUser(row: UserRow, holds: Holds): AppUserRecord {
  return {
    appUuid: row.app_uuid,
    address: row.address,
    balanceMicro: row.balance_micro,
    heldMicro: holds.of(row.account_id),
    creditLimitMicro: row.credit_limit_micro,
    spentMicro: row.spent_micro,
    createdAt: row.created_at,
  };
}
