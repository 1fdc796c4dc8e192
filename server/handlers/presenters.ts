import type { z } from 'zod';
import type { ApiKey, App, AppUser } from '../../src/contract/schemas/apps.js';
import { microToCredits } from '../store/money.js';
import type { ApiKeyRecord, AppRecord, AppUserRecord, Page, PageOf } from '../store/types.js';

/** Store records → the API's response shapes (DESIGN §4). */

export function presentApp(app: AppRecord): z.input<typeof App> {
  return {
    app_uuid: app.appUuid,
    name: app.name,
    app_type: app.appType,
    default_user_credits: microToCredits(app.defaultUserCreditsMicro),
    allowed_origins: app.allowedOrigins,
    balance_credits: microToCredits(app.balanceMicro),
    held_credits: microToCredits(app.heldMicro),
    idp_configured: app.idpAppId !== null,
    idp_app_id: app.idpAppId,
    rate_limit_rpm: app.rateLimitRpm,
    rate_limit_tpm: app.rateLimitTpm,
    user_claims: app.userClaims,
    created_at: app.createdAt,
    updated_at: app.updatedAt,
  };
}

export function presentKey(key: ApiKeyRecord): z.input<typeof ApiKey> {
  return {
    key_id: key.keyId,
    name: key.name,
    is_test: key.isTest,
    role: key.role,
    prefix: key.prefix,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
  };
}

export function presentUser(user: AppUserRecord): z.input<typeof AppUser> {
  return {
    address: user.address,
    credits: microToCredits(user.balanceMicro),
    credit_limit: user.creditLimitMicro === null ? null : microToCredits(user.creditLimitMicro),
    spent_credits: microToCredits(user.spentMicro),
    created_at: user.createdAt,
  };
}

export function presentPage<T, U>(page: PageOf<T>, request: Page, present: (item: T) => U) {
  return { data: page.items.map(present), limit: request.limit, offset: request.offset, total: page.total };
}
