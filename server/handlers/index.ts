import { catalogHandlers } from './catalogs.js';
import { developerAppsHandlers } from './developer-apps.js';
import { developerIdpHandlers } from './developer-idp.js';
import { developerKeysHandlers } from './developer-keys.js';
import { developerUsersHandlers } from './developer-users.js';
import { inferenceHandlers } from './inference.js';
import { messagesHandlers } from './messages.js';
import { providersHandlers } from './providers.js';
import { sandboxHandlers } from './sandbox.js';
import { systemHandlers } from './system.js';
import { textHandlers } from './text.js';
import { usageHandlers } from './usage.js';
import { creditsHandlers } from './credits.js';
import { subscriptionsHandlers } from './subscriptions.js';
import type { HandlerTable } from './types.js';

/** Every implemented operation. One file per group; an operation missing here answers 501. */
export const handlers: HandlerTable = {
  ...systemHandlers,
  ...inferenceHandlers,
  ...messagesHandlers,
  ...usageHandlers,
  ...creditsHandlers,
  ...subscriptionsHandlers,
  ...developerAppsHandlers,
  ...developerKeysHandlers,
  ...developerIdpHandlers,
  ...developerUsersHandlers,
  ...textHandlers,
  ...catalogHandlers,
  ...sandboxHandlers,
  ...providersHandlers,
};
