import type { Clock } from '../clock.js';
import { insufficientCredits, notFound } from '../errors.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import { InsufficientFundsError, type AppScope, type AppUserRecord, type Page, type Store } from '../store/types.js';

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

  return {
    list(scope: AppScope, page: Page) {
      return store.users.list(scope, page);
    },

    async get(scope: AppScope, address: string): Promise<AppUserRecord> {
      const user = await store.users.get(scope, address);
      if (!user) throw notFound(`No ${scope.livemode ? 'live' : 'test'} user ${address} in app ${scope.appUuid}.`, 'user_not_found');
      return user;
    },

    /** Moves credits from the app's balance to the user; an unknown address becomes a user. */
    topUp(scope: AppScope, address: string, credits: number) {
      return funded(() => store.users.topUp(scope, address, creditsToMicro(credits), now()));
    },

    setCreditLimit(scope: AppScope, address: string, credits: number | null) {
      return funded(() => store.users.setCreditLimit(scope, address, credits === null ? null : creditsToMicro(credits), now()));
    },
  };
}
