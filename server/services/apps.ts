import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AppCreateBody, AppDeleteBody, AppUpdateBody } from '../../src/contract/schemas/apps.js';
import type { Clock } from '../clock.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import type { AppRecord, BalanceDestination, Grant, Page, Store } from '../store/types.js';
import { budgetChange, type BudgetInput } from './budgets.js';

const USER_BUDGET_FIELDS = { credits: 'user_budget_credits', period: 'user_budget_period' };
/** The app's default budget for its users, as a body gives it. */
const userBudgetInput = (input: { user_budget_credits?: number | null | undefined; user_budget_period?: string | undefined }): BudgetInput => ({
  credits: input.user_budget_credits,
  period: input.user_budget_period,
});

export function appNotFound(appUuid: string) {
  return notFound(`No app ${appUuid}.`, 'app_not_found');
}

export function createAppsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The developer's app; another developer's or a deleted app is a 404, never a 403. */
  async function get(developerId: string, appUuid: string): Promise<AppRecord> {
    const app = await store.apps.get(developerId, appUuid);
    if (!app) throw appNotFound(appUuid);
    return app;
  }

  return {
    async create(
      developerId: string,
      input: Omit<z.output<typeof AppCreateBody>, 'user_claims'> & { user_claims?: boolean },
      startingGrant?: Omit<Grant, 'at'>,
    ) {
      const at = now();
      return store.apps.create(
        {
          appUuid: randomUUID(),
          developerId,
          name: input.name,
          appType: input.app_type,
          defaultUserCreditsMicro: creditsToMicro(input.default_user_credits),
          allowedOrigins: [...new Set(input.allowed_origins)],
          rateLimitRpm: input.rate_limit_rpm ?? null,
          rateLimitTpm: input.rate_limit_tpm ?? null,
          userClaims: input.user_claims,
          userBudget: budgetChange(userBudgetInput(input), null, USER_BUDGET_FIELDS) ?? null,
          at,
        },
        startingGrant && { ...startingGrant, at },
      );
    },

    list(developerId: string, page: Page) {
      return store.apps.list(developerId, page);
    },

    get,

    async update(developerId: string, appUuid: string, input: z.output<typeof AppUpdateBody>) {
      const userBudget = budgetChange(userBudgetInput(input), (await get(developerId, appUuid)).userBudget, USER_BUDGET_FIELDS);
      const app = await store.apps.update(
        developerId,
        appUuid,
        {
          name: input.name,
          defaultUserCreditsMicro:
            input.default_user_credits === undefined ? undefined : creditsToMicro(input.default_user_credits),
          // The specification's rule: omitted or null leaves the list, [] clears it, a list sets it.
          allowedOrigins: input.allowed_origins == null ? undefined : [...new Set(input.allowed_origins)],
          // Unlike allowed_origins, null here means something: back to the server default.
          rateLimitRpm: input.rate_limit_rpm,
          rateLimitTpm: input.rate_limit_tpm,
          userClaims: input.user_claims,
          userBudget,
        },
        now(),
      );
      if (!app) throw appNotFound(appUuid);
      return app;
    },

    oldestApp,

    /**
     * What deleting the app will do with its credits, refused (404, 409) before anything changes:
     * the caller ends the app's subscriptions between this and `delete`, which must not happen
     * for an app that stays.
     */
    async planDeletion(developerId: string, appUuid: string, input: z.output<typeof AppDeleteBody>): Promise<DeletionPlan> {
      const app = await get(developerId, appUuid);
      const destination = await destinationOf(developerId, app.appUuid, input);
      const test = await store.metering.balance({ kind: 'app', appUuid: app.appUuid, test: true });
      const held = { balanceMicro: app.balanceMicro, testBalanceMicro: test.balanceMicro, heldMicro: app.heldMicro + test.heldMicro };
      if (held.heldMicro > 0 || (!destination && (held.balanceMicro > 0 || held.testBalanceMicro > 0))) {
        throw await keptForCredits(developerId, app.appUuid, held);
      }
      return { appUuid: app.appUuid, destination };
    },

    /** Deletes the app as planned; the store checks the credits again in the same transaction. */
    async delete(developerId: string, plan: DeletionPlan) {
      const result = await store.apps.delete(developerId, plan.appUuid, now(), plan.destination);
      if (result.outcome === 'not_found') throw appNotFound(plan.appUuid);
      if (result.outcome === 'destination_not_found') throw destinationNotFound(plan.destination);
      if (result.outcome === 'holds_credits') throw await keptForCredits(developerId, plan.appUuid, result);
      return { appUuid: plan.appUuid, movedMicro: result.movedMicro, movedTestMicro: result.movedTestMicro, destination: plan.destination };
    },
  };

  /** The developer's first app still there (their default app), leaving out `except`; null when none. */
  async function oldestApp(developerId: string, except?: string): Promise<AppRecord | null> {
    // Lists are newest first: the two last are the two oldest, one of which is not `except`.
    const { total } = await store.apps.list(developerId, { limit: 1, offset: 0 });
    const { items } = await store.apps.list(developerId, { limit: 2, offset: Math.max(0, total - 2) });
    return items.reverse().find((app) => app.appUuid !== except) ?? null;
  }

  async function destinationOf(
    developerId: string,
    appUuid: string,
    input: z.output<typeof AppDeleteBody>,
  ): Promise<BalanceDestination | undefined> {
    if (input.move_balance_to !== undefined) {
      if (input.move_balance_to === appUuid) {
        throw invalidRequest('move_balance_to must be another app: an app cannot keep its credits once deleted.', 'move_balance_to');
      }
      const target = await store.apps.get(developerId, input.move_balance_to);
      if (!target) throw destinationNotFound({ appUuid: input.move_balance_to });
      return { appUuid: target.appUuid };
    }
    if (!input.force) return undefined;
    const other = await oldestApp(developerId, appUuid);
    return other ? { appUuid: other.appUuid } : { operator: true };
  }

  /** The 409 of an app that holds credits: how many, and the two ways to delete it anyway. */
  async function keptForCredits(
    developerId: string,
    appUuid: string,
    held: { balanceMicro: number; testBalanceMicro: number; heldMicro: number },
  ) {
    if (held.heldMicro > 0) {
      return conflict(
        `App ${appUuid} has ${microToCredits(held.heldMicro)} credits held by requests in flight: delete it once they have finished.`,
        'app_requests_in_flight',
      );
    }
    const test = held.testBalanceMicro > 0 ? ` and ${microToCredits(held.testBalanceMicro)} test credits` : '';
    const other = await oldestApp(developerId, appUuid);
    const forced = other
      ? `force: true to move them to your oldest other app, ${other.appUuid}`
      : 'force: true to give them back to the operator (this is your last app; test credits are dropped)';
    return conflict(
      `App ${appUuid} holds ${microToCredits(held.balanceMicro)} credits${test}, which would be lost with it. ` +
        `Give move_balance_to with another of your apps to move them there, or ${forced}.`,
      'app_holds_credits',
    );
  }
}

/** A deletion checked and ready: which app, and where its credits go (undefined: it holds none). */
export interface DeletionPlan {
  appUuid: string;
  destination: BalanceDestination | undefined;
}

function destinationNotFound(destination: BalanceDestination | undefined) {
  const appUuid = destination && 'appUuid' in destination ? destination.appUuid : '';
  return notFound(`No app ${appUuid} to move the balance to: move_balance_to must be another of your apps.`, 'app_not_found', 'move_balance_to');
}

export type AppsService = ReturnType<typeof createAppsService>;
