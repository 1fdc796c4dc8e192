import type { Clock } from '../clock.js';
import { insufficientCredits, invalidRequest, notFound } from '../errors.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import {
  InsufficientFundsError,
  type AppScope,
  type AppUserPatch,
  type AppUserRecord,
  type BudgetLimit,
  type Page,
  type Store,
} from '../store/types.js';
import { budgetChange, budgetStanding } from './budgets.js';

/** An app's users in one mode, with the app's default budget for them. */
export type UsersScope = AppScope & { userBudget: BudgetLimit | null };

/** The budget a user spends under now: their own or the app's default, with what is spent and when it resets. */
export interface UserBudgetInForce extends BudgetLimit {
  source: 'user' | 'app';
  spentMicro: number;
  resetsAt: string | null;
}

export type UserWithBudget = AppUserRecord & { budgetInForce: UserBudgetInForce | null };

/** A user update as the contract gives it (it has checked the forms). */
interface UserUpdateInput {
  credits?: number | null | undefined;
  budget_credits?: number | null | undefined;
  budget_period?: string | undefined;
}

const USER_BUDGET_FIELDS = { credits: 'budget_credits', period: 'budget_period' };

/** An app's users in one mode (the caller's): live keys manage live users, test mode sees only sandbox users. */
export function createUsersService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** Ledger refusals become a 402 that says what the app has. */
  async function funded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InsufficientFundsError) {
        throw insufficientCredits(
          `The app balance (${microToCredits(error.availableMicro)} credits) cannot cover ${microToCredits(error.neededMicro)} credits. Fund the app first (svc api developer apps fund).`,
        );
      }
      throw error;
    }
  }

  /** The user with the budget in force: their own, else the app's default (the hold's rule too). */
  function withBudget(scope: UsersScope, user: AppUserRecord): UserWithBudget {
    const limit = user.budget ?? scope.userBudget;
    if (!limit) return { ...user, budgetInForce: null };
    const standing = budgetStanding({ period: limit.period, ...user.budgetWindow }, clock.now());
    return { ...user, budgetInForce: { ...limit, source: user.budget ? 'user' : 'app', ...standing } };
  }

  async function get(scope: UsersScope, address: string): Promise<UserWithBudget> {
    const user = await store.users.get(scope, address);
    if (!user) throw notFound(`No ${scope.livemode ? 'live' : 'test'} user ${address} in app ${scope.appUuid}.`, 'user_not_found');
    return withBudget(scope, user);
  }

  return {
    async list(scope: UsersScope, page: Page) {
      const listed = await store.users.list(scope, page);
      return { ...listed, items: listed.items.map((user) => withBudget(scope, user)) };
    },

    get,

    /** Moves credits from the app's balance to the user; an unknown address becomes a user. */
    async topUp(scope: UsersScope, address: string, credits: number) {
      return withBudget(scope, await funded(() => store.users.topUp(scope, address, creditsToMicro(credits), now())));
    },

    /** Changes the user's credit limit and own budget; an unknown address becomes a user. */
    async update(scope: UsersScope, address: string, input: UserUpdateInput) {
      if (input.credits === undefined && input.budget_credits === undefined && input.budget_period === undefined) {
        throw invalidRequest('Give credits (the credit limit), budget_credits or budget_period: there is nothing to change.', 'credits', 'missing_field');
      }
      const patch: AppUserPatch = {};
      if (input.credits !== undefined) patch.creditLimitMicro = input.credits === null ? null : creditsToMicro(input.credits);
      const current = input.budget_credits === undefined && input.budget_period !== undefined ? (await store.users.get(scope, address))?.budget : null;
      const budget = budgetChange({ credits: input.budget_credits, period: input.budget_period }, current ?? null, USER_BUDGET_FIELDS);
      if (budget !== undefined) patch.budget = budget;
      return withBudget(scope, await funded(() => store.users.update(scope, address, patch, now())));
    },
  };
}
