import { forbidden } from '../errors.js';
import { microToCredits } from '../store/money.js';
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

  'developer.apps.api-keys.update': async ({ principal, params, body, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    return presentKey(await services.apiKeys.update(app.appUuid, params.key_id, body));
  },

  'developer.apps.api-keys.delete': async ({ principal, params, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    await services.apiKeys.delete(app.appUuid, params.key_id);
    return { id: params.key_id, object: 'api_key', deleted: true };
  },

  // OpenRouter's shape, so that tools written for it read a svc key's budget as they read theirs.
  'key.get': async ({ principal, services }) => {
    if (principal.kind !== 'api_key') throw forbidden('GET /key describes an API key; identity tokens have none.');
    const key = await services.apiKeys.current(principal.app.appUuid, principal.keyId);
    const held = key.budget ? (await services.store.metering.keyHeld?.(key.keyId)) ?? 0 : 0;
    const usage = key.standing?.spentMicro ?? 0;
    return {
      data: {
        key_id: key.keyId,
        label: key.name,
        role: key.role,
        is_test: key.isTest,
        limit: key.budget ? microToCredits(key.budget.limitMicro) : null,
        usage: microToCredits(usage),
        limit_remaining: key.budget ? microToCredits(Math.max(0, key.budget.limitMicro - usage - held)) : null,
        limit_reset: key.budget?.period ?? null,
        limit_resets_at: key.standing?.resetsAt ?? null,
        expires_at: key.expiresAt,
      },
    };
  },
};
