import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from './clock.js';
import { checkConservation, OPERATOR_GRANT } from './services/conservation.js';
import { creditsToMicro, microToCredits } from './store/money.js';
import { createApiKeysService } from './services/api-keys.js';
import { createAppsService } from './services/apps.js';
import { createDeveloperAccount } from './services/bootstrap.js';
import { openStore } from './store/open.js';
import type { Payer, Store } from './store/types.js';

/**
 * What the operator does where the database is (`svc admin …`, `svc serve --check`), never over
 * the network: each opens the database, acts, and closes it.
 */
async function withStore<T>(dbPath: string, act: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(dbPath);
  try {
    return await act(store);
  } finally {
    await store.close();
  }
}

/** A new developer account with a default app and its first admin key (shown once). */
export function createDeveloper(dbPath: string, name: string, clock: Clock = systemClock) {
  return withStore(dbPath, async (store) => {
    const deps = { store, clock };
    const { developer, app, adminKey } = await createDeveloperAccount(
      { ...deps, apps: createAppsService(deps), apiKeys: createApiKeysService(deps) },
      { name, grantCredits: 0 },
    );
    return { developerId: developer.id, name: developer.name, appUuid: app.appUuid, adminKey, createdAt: developer.createdAt };
  });
}

/** Every developer account, oldest first, with its number of apps. */
export function listDevelopers(dbPath: string) {
  return withStore(dbPath, (store) => store.developers.list());
}

/**
 * Opens the database, which applies pending migrations (refused, in one line, when the database
 * is newer than this code), and says which version it is at.
 */
export function migrateDatabase(dbPath: string) {
  return withStore(dbPath, async (store) => ({ schemaVersion: await store.schemaVersion() }));
}

/** The conservation check (`svc serve --check`): every live credit has a source (services/conservation.ts). */
export function checkLedger(dbPath: string) {
  return withStore(dbPath, (store) => checkConservation(store));
}

/** Where an operator grant goes: an app's live balance, or the promotions account that pays developers' claims. */
export type GrantTarget = { appUuid: string } | { promotions: true };

/**
 * An operator grant: credits from the operator, a ledger entry of its own kind (a source, for
 * the conservation check). Refused for an app that does not exist, and past the 2^53 limit.
 */
export function grantCredits(
  dbPath: string,
  input: { target: GrantTarget; credits: number; reason?: string | undefined },
  clock: Clock = systemClock,
) {
  return withStore(dbPath, async (store) => {
    let payer: Payer = { kind: 'promotions' };
    if ('appUuid' in input.target) {
      const app = await store.apps.byId(input.target.appUuid);
      if (!app) throw new Error(`no app ${input.target.appUuid} (svc api developer apps list shows a developer's apps)`);
      payer = { kind: 'app', appUuid: app.appUuid };
    }
    const result = await store.credits.grant(payer, {
      amountMicro: creditsToMicro(input.credits),
      kind: OPERATOR_GRANT,
      idempotencyKey: `operator-grant:${randomUUID()}`,
      ...(input.reason ? { reference: input.reason } : {}),
      at: clock.now().toISOString(),
    });
    return { balanceCredits: microToCredits(result.balanceMicro) };
  });
}
