import type { HandlerTable } from './types.js';

export const creditsHandlers: HandlerTable = {
  'credits.claim-daily': async ({ principal, services }) => services.credits.claimDaily(principal),
  'credits.claim-task': async ({ principal, body, services }) => services.credits.claimTask(principal, body),
  'credits.packs': async ({ services }) => services.credits.packs(),
};
