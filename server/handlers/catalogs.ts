import { isTestMode } from '../auth/principal.js';
import type { HandlerTable } from './types.js';

/** Read-only catalogs shipped with the server: agents, the public configuration, tasks. */
export const catalogHandlers: HandlerTable = {
  'agents.list': async ({ services }) => services.agents.list(),
  'agents.get': async ({ params, services }) => services.agents.get(params.id),
  'config.list': async ({ principal, services }) => ({
    ...services.publicConfig.get(),
    payment_processor: services.processors.mode,
    caller: {
      kind: principal.kind,
      app_uuid: principal.app.appUuid,
      role: principal.kind === 'api_key' ? principal.role : null,
      livemode: !isTestMode(principal),
    },
  }),
  'tasks.list': async ({ principal, services }) => services.tasks.list(await services.credits.claimedTasks(principal)),
};
