import { presentKey, presentPage } from './presenters.js';
import type { HandlerTable } from './types.js';

export const developerKeysHandlers: HandlerTable = {
  'developer.apps.api-keys.create': async ({ principal, params, body, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    const key = await services.apiKeys.create(app.appUuid, body);
    return { ...presentKey(key), secret: key.secret };
  },

  'developer.apps.api-keys.list': async ({ principal, params, query, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentPage(await services.apiKeys.list(app.appUuid, query), query, presentKey);
  },

  'developer.apps.api-keys.delete': async ({ principal, params, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    await services.apiKeys.delete(app.appUuid, params.key_id);
    return { id: params.key_id, object: 'api_key', deleted: true };
  },
};
