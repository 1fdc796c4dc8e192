import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { creditsToMicro } from '../store/money.js';
import type { Store } from '../store/types.js';
import type { AppsService } from './apps.js';
import type { createApiKeysService } from './api-keys.js';

export interface BootstrapResult {
  developerId: string;
  appUuid: string;
  liveKey: string;
  testKey: string;
}

/**
 * On an empty database: the owner developer account, a default app holding the starting grant,
 * an `admin` live key and an `inference` test key. Returns null when the database already has an owner.
 */
export async function bootstrapOwner(
  deps: { store: Store; clock: Clock; apps: AppsService; apiKeys: ReturnType<typeof createApiKeysService> },
  startingGrantCredits: number,
): Promise<BootstrapResult | null> {
  if ((await deps.store.developers.count()) > 0) return null;
  const developer = await deps.store.developers.create({
    id: `dev_${randomUUID().replaceAll('-', '')}`,
    name: 'owner',
    createdAt: deps.clock.now().toISOString(),
  });
  const app = await deps.apps.create(
    developer.id,
    { name: 'Default app', app_type: 'standard', default_user_credits: 0, allowed_origins: [] },
    startingGrantCredits > 0
      ? {
          amountMicro: creditsToMicro(startingGrantCredits),
          kind: 'starting_grant',
          idempotencyKey: `starting-grant:${developer.id}`,
        }
      : undefined,
  );
  const live = await deps.apiKeys.create(app.appUuid, { name: 'owner live key', is_test: false, role: 'admin' });
  const test = await deps.apiKeys.create(app.appUuid, { name: 'owner test key', is_test: true, role: 'inference' });
  return { developerId: developer.id, appUuid: app.appUuid, liveKey: live.secret, testKey: test.secret };
}
