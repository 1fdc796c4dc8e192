import type { HandlerTable } from './types.js';

export const developerIdpHandlers: HandlerTable = {
  'developer.apps.idp.create': async ({ principal, params, body, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    const { app: updated, fingerprint } = await services.idp.set(app.appUuid, body);
    return {
      app_uuid: updated.appUuid,
      idp_app_id: updated.idpAppId ?? body.idp_app_id,
      key_fingerprint: fingerprint,
      updated_at: updated.idpUpdatedAt ?? updated.updatedAt,
    };
  },

  'developer.apps.idp.delete': async ({ principal, params, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    await services.idp.clear(app.appUuid, app);
    return { id: app.appUuid, object: 'idp_config', deleted: true };
  },
};
