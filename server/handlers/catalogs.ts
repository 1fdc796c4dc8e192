import type { HandlerTable } from './types.js';

/** Read-only catalogs shipped with the server: agents, the public configuration, tasks. */
export const catalogHandlers: HandlerTable = {
  'agents.list': async ({ services }) => services.agents.list(),
  'agents.get': async ({ params, services }) => services.agents.get(params.id),
  'config.list': async ({ services }) => services.publicConfig.get(),
  'tasks.list': async ({ principal, services }) => services.tasks.list(await services.credits.claimedTasks(principal)),
};
