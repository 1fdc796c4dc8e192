import type { Clock } from '../clock.js';
import type { Store } from '../store/types.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { createApiKeysService } from './api-keys.js';
import { createAppsService } from './apps.js';
import { createIdpService } from './idp.js';
import { createUsersService } from './users.js';
import { createProviderRegistry } from '../providers/registry.js';
import { createChatService } from './inference/chat.js';

export interface ServiceDeps {
  store: Store;
  clock: Clock;
  version: string;
}

/** Every service, wired once per server. */
export function createServices(deps: ServiceDeps) {
  const registry = createProviderRegistry();
  return {
    registry,
    chat: createChatService({ ...deps, registry }),
    version: deps.version,
    clock: deps.clock,
    auth: createAuthenticator(deps),
    apps: createAppsService(deps),
    apiKeys: createApiKeysService(deps),
    idp: createIdpService(deps),
    users: createUsersService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
