import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { creditsToMicro } from '../store/money.js';
import type { Store } from '../store/types.js';
import type { AppsService } from './apps.js';
import { OPERATOR_GRANT } from './conservation.js';
import type { createApiKeysService } from './api-keys.js';

export interface BootstrapResult {
  developerId: string;
  appUuid: string;
  liveKey: string;
  testKey: string;
}

export interface AccountDeps {
  store: Store;
  clock: Clock;
  apps: AppsService;
  apiKeys: ReturnType<typeof createApiKeysService>;
}

/** A developer's first app (again, for the operator, when they have deleted every one). */
export function createDefaultApp(apps: AppsService, developerId: string, startingGrant?: Parameters<AppsService['create']>[2]) {
  return apps.create(developerId, { name: 'Default app', app_type: 'standard', default_user_credits: 0, allowed_origins: [] }, startingGrant);
}

/**
 * A developer account, ready to use: the account, a default app (holding an operator grant when
 * `grantCredits` > 0) and its first `admin` live key. Only the operator creates one: at the first
 * start of a server, or with `svc admin developers create`; no network call can.
 */
export async function createDeveloperAccount(deps: AccountDeps, input: { name: string; grantCredits: number }) {
  const developer = await deps.store.developers.create({
    id: `dev_${randomUUID().replaceAll('-', '')}`,
    name: input.name,
    createdAt: deps.clock.now().toISOString(),
  });
  const app = await createDefaultApp(
    deps.apps,
    developer.id,
    input.grantCredits > 0
      ? {
          amountMicro: creditsToMicro(input.grantCredits),
          kind: OPERATOR_GRANT,
          idempotencyKey: `starting-grant:${developer.id}`,
          reference: 'starting credits of a new server',
        }
      : undefined,
  );
  const admin = await deps.apiKeys.create(app.appUuid, { name: `${input.name} admin key`, is_test: false, role: 'admin' });
  return { developer, app, adminKey: admin.secret };
}

/**
 * On an empty database: the owner's account (an `admin` live key, and an `inference` test key
 * to try the sandbox with). Returns null when the database already has an owner.
 */
export function bootstrapOwner(deps: AccountDeps, startingGrantCredits: number): Promise<BootstrapResult | null> {
  // Instances starting together on one empty database: one creates the owner, the others see it.
  return deps.store.coordination.exclusively('bootstrap', async () => {
    if ((await deps.store.developers.count()) > 0) return null;
    const { developer, app, adminKey } = await createDeveloperAccount(deps, { name: 'owner', grantCredits: startingGrantCredits });
    const test = await deps.apiKeys.create(app.appUuid, { name: 'owner test key', is_test: true, role: 'inference' });
    return { developerId: developer.id, appUuid: app.appUuid, liveKey: adminKey, testKey: test.secret };
  });
}
