import { presentPage, presentUser } from './presenters.js';
import type { HandlerTable } from './types.js';

export const developerUsersHandlers: HandlerTable = {
  'developer.apps.users.list': async ({ principal, params, query, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentPage(await services.users.list(app.appUuid, query), query, presentUser);
  },

  'developer.apps.users.get': async ({ principal, params, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentUser(await services.users.get(app.appUuid, params.address));
  },

  'developer.apps.users.top-up': async ({ principal, params, body, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentUser(await services.users.topUp(app.appUuid, params.address, body.credits));
  },

  'developer.apps.users.update': async ({ principal, params, body, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentUser(await services.users.setCreditLimit(app.appUuid, params.address, body.credits));
  },
};
