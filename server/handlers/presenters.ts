import type { z } from 'zod';
import type { ApiKey, App, AppDeleted, AppUser } from '../../src/contract/schemas/apps.js';
import { microToCredits } from '../store/money.js';
import type { KeyWithStanding } from '../services/api-keys.js';
import type { UserWithBudget } from '../services/users.js';
import type { AppRecord, BalanceDestination, Page, PageOf } from '../store/types.js';

/** Store records → the API's response shapes (ARCHITECTURE.md §4). */

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
    user_budget_credits: app.userBudget ? microToCredits(app.userBudget.limitMicro) : null,
    user_budget_period: app.userBudget?.period ?? null,
    created_at: app.createdAt,
    updated_at: app.updatedAt,
  };
}

/** A deleted app, and where its credits went (null when it held none). */
export function presentAppDeletion(deletion: {
  appUuid: string;
  movedMicro: number;
  movedTestMicro: number;
  destination: BalanceDestination | undefined;
}): z.input<typeof AppDeleted> {
  const { destination } = deletion;
  const moved = destination && (deletion.movedMicro > 0 || deletion.movedTestMicro > 0);
  return {
    id: deletion.appUuid,
    object: 'app',
    deleted: true,
    balance_moved: moved
      ? {
          to: 'appUuid' in destination ? 'app' : 'operator',
          app_uuid: 'appUuid' in destination ? destination.appUuid : null,
          credits: microToCredits(deletion.movedMicro),
          test_credits: microToCredits(deletion.movedTestMicro),
        }
      : null,
  };
}

export function presentKey(key: KeyWithStanding): z.input<typeof ApiKey> {
  return {
    key_id: key.keyId,
    name: key.name,
    is_test: key.isTest,
    role: key.role,
    prefix: key.prefix,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    budget_credits: key.budget ? microToCredits(key.budget.limitMicro) : null,
    budget_period: key.budget?.period ?? null,
    budget_spent_credits: key.standing ? microToCredits(key.standing.spentMicro) : null,
    budget_resets_at: key.standing?.resetsAt ?? null,
    expires_at: key.expiresAt,
  };
}

export function presentUser(user: UserWithBudget): z.input<typeof AppUser> {
  const budget = user.budgetInForce;
  return {
    address: user.address,
    credits: microToCredits(user.balanceMicro),
    credit_limit: user.creditLimitMicro === null ? null : microToCredits(user.creditLimitMicro),
    spent_credits: microToCredits(user.spentMicro),
    budget_credits: budget ? microToCredits(budget.limitMicro) : null,
    budget_period: budget?.period ?? null,
    budget_source: budget?.source ?? null,
    budget_spent_credits: budget ? microToCredits(budget.spentMicro) : null,
    budget_resets_at: budget?.resetsAt ?? null,
    created_at: user.createdAt,
  };
}

export function presentPage<T, U>(page: PageOf<T>, request: Page, present: (item: T) => U) {
  return { data: page.items.map(present), limit: request.limit, offset: request.offset, total: page.total };
}
