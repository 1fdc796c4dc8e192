import { scopeOf, type Principal } from '../auth/principal.js';
import type { Services } from '../services/index.js';
import type { UsersScope } from '../services/users.js';
import { presentPage, presentUser } from './presenters.js';
import type { HandlerTable } from './types.js';

/** The named app of the caller's developer, in the caller's mode: where its users are looked for. */
const usersOf = async (principal: Principal, appUuid: string, services: Services): Promise<UsersScope> => {
  const app = await services.apps.get(principal.developerId, appUuid);
  return { ...scopeOf(principal, app), userBudget: app.userBudget };
};

export const developerUsersHandlers: HandlerTable = {
  'developer.apps.users.list': async ({ principal, params, query, services }) =>
    presentPage(await services.users.list(await usersOf(principal, params.app_uuid, services), query), query, presentUser),

  'developer.apps.users.get': async ({ principal, params, services }) =>
    presentUser(await services.users.get(await usersOf(principal, params.app_uuid, services), params.address)),

  'developer.apps.users.top-up': async ({ principal, params, body, services }) =>
    presentUser(await services.users.topUp(await usersOf(principal, params.app_uuid, services), params.address, body.credits)),

  'developer.apps.users.update': async ({ principal, params, body, services }) =>
    presentUser(await services.users.update(await usersOf(principal, params.app_uuid, services), params.address, body)),
};
