import { afterEach, beforeEach } from 'vitest';
import type { Payer, Store } from '../../server/store/types.js';
import { newDeveloper, type Backend } from '../helpers/stores.js';

/**
 * For a suite of `describeEachBackend`: a new store before each case, holding a developer's live
 * app granted `balance` credits, and closed after it. The fields are those of the current case.
 */
export function useFundedApp(backend: Backend, balance: number): { store: Store; payer: Payer; appUuid: string } {
  const current = {} as { store: Store; payer: Payer; appUuid: string };
  let close: () => Promise<void> = async () => {};
  beforeEach(async () => {
    const opened = await backend.open();
    close = opened.close;
    current.store = opened.store;
    current.appUuid = (await (await newDeveloper(opened.store)).newApp(balance)).appUuid;
    current.payer = { kind: 'app', appUuid: current.appUuid };
  });
  afterEach(async () => close());
  return current;
}
