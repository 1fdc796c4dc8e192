import { presentApp, presentAppDeletion, presentPage } from './presenters.js';
import type { HandlerTable } from './types.js';

export const developerAppsHandlers: HandlerTable = {
  'developer.apps.create': async ({ principal, body, services }) =>
    presentApp(await services.apps.create(principal.developerId, body)),

  'developer.apps.list': async ({ principal, query, services }) =>
    presentPage(await services.apps.list(principal.developerId, query), query, presentApp),

  'developer.apps.get': async ({ principal, params, services }) =>
    presentApp(await services.apps.get(principal.developerId, params.app_uuid)),

  'developer.apps.update': async ({ principal, params, body, services }) =>
    presentApp(await services.apps.update(principal.developerId, params.app_uuid, body)),

  'developer.apps.delete': async ({ principal, params, body, services }) => {
    // Refusals (404, an app holding credits) come before anything changes.
    const plan = await services.apps.planDeletion(principal.developerId, params.app_uuid, body);
    // First, so that a processor that cannot cancel (502) leaves the app in place to retry.
    await services.subscriptions.endAllOf(plan.appUuid);
    return presentAppDeletion(await services.apps.delete(principal.developerId, plan));
  },
};
