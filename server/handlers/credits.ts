import type { HandlerTable } from './types.js';

export const creditsHandlers: HandlerTable = {
  'credits.claim-daily': async ({ principal, services }) => services.credits.claimDaily(principal),
  'credits.claim-task': async ({ principal, body, services }) => services.credits.claimTask(principal, body),
  'credits.packs': async ({ services }) => services.credits.packs(),
  'credits.sync-points': async ({ principal, services }) => services.points.sync(principal),
  'credits.purchase': async ({ principal, body, services, request }) => services.payments.purchase(principal, body, request.origin),

  'developer.apps.fund': async ({ principal, params, body, services, request }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return services.payments.fund(principal.developerId, app.appUuid, body, request.origin);
  },
  'developer.billing': async ({ principal, query, services }) => services.payments.billing(principal, query),
};
