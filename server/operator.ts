import { randomUUID } from 'node:crypto';
import type { KeyRole } from '../src/contract/operation.js';
import { ApiKeyCreateBody } from '../src/contract/schemas/apps.js';
import { systemClock, type Clock } from './clock.js';
import { checkConservation, OPERATOR_GRANT } from './services/conservation.js';
import { creditsToMicro, microToCredits } from './store/money.js';
import { createApiKeysService } from './services/api-keys.js';
import { createAppsService } from './services/apps.js';
import { createDefaultApp, createDeveloperAccount } from './services/bootstrap.js';
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

/**
 * Every developer account, oldest first, with its number of apps and its default app (its
 * oldest, where `svc admin keys create` issues a key unless told): what finds an owner's id.
 */
export function listDevelopers(dbPath: string, clock: Clock = systemClock) {
  return withStore(dbPath, async (store) => {
    const apps = createAppsService({ store, clock });
    const developers = await store.developers.list();
    return Promise.all(
      developers.map(async (developer) => ({ ...developer, defaultAppUuid: (await apps.oldestApp(developer.id))?.appUuid ?? null })),
    );
  });
}

/**
 * A new API key for one of a developer's apps (its default app unless `appUuid` says), shown
 * once: the way back in for an owner who lost their keys, since no API call can issue a key
 * without one. The name and role follow the contract's rules; a test key is never admin.
 */
export function issueKey(
  dbPath: string,
  input: { developerId: string; appUuid?: string | undefined; role: KeyRole; name?: string | undefined; test: boolean },
  clock: Clock = systemClock,
) {
  const fields = ApiKeyCreateBody.safeParse({ name: input.name ?? 'issued by the operator', is_test: input.test, role: input.role });
  if (!fields.success) {
    const issue = fields.error.issues[0];
    throw new Error(`--${issue?.path[0] === 'name' ? 'name' : 'role'}: ${issue?.message ?? 'invalid'}`);
  }
  return withStore(dbPath, async (store) => {
    const deps = { store, clock };
    const developer = (await store.developers.list()).find((d) => d.id === input.developerId);
    if (!developer) throw new Error(`no developer ${input.developerId} (svc admin developers list shows them)`);
    const apps = createAppsService(deps);
    let app = input.appUuid ? await store.apps.get(developer.id, input.appUuid) : await apps.oldestApp(developer.id);
    if (!app && input.appUuid) {
      throw new Error(`developer ${developer.id} has no app ${input.appUuid} (svc admin developers list shows each developer's default app)`);
    }
    // A developer who deleted every app would have nowhere to hold a key: they get a new default app.
    const createdApp = !app;
    app ??= await createDefaultApp(apps, developer.id);
    const key = await createApiKeysService(deps).create(app.appUuid, fields.data);
    return { keyId: key.keyId, name: key.name, role: key.role, isTest: key.isTest, appUuid: app.appUuid, createdApp, developerId: developer.id, secret: key.secret };
  });
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
