import { systemClock, type Clock } from './clock.js';
import { createApiKeysService } from './services/api-keys.js';
import { createAppsService } from './services/apps.js';
import { createDeveloperAccount } from './services/bootstrap.js';
import { createSqliteStore } from './store/sqlite/index.js';
import type { Store } from './store/types.js';

/**
 * What the operator does where the database is (`svc admin …`, `svc serve --check`), never over
 * the network: each opens the database, acts, and closes it.
 */
async function withStore<T>(dbPath: string, act: (store: Store) => Promise<T>): Promise<T> {
  const store = createSqliteStore(dbPath);
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

/** The ledger consistency check (`svc serve --check`). */
export function checkLedger(dbPath: string) {
  return withStore(dbPath, (store) => store.credits.check());
}
