import type { HandlerTable } from './types.js';

export const providersHandlers: HandlerTable = {
  'providers.status': async ({ services }) => {
    const { targets, at } = await services.providerStatus.status();
    return { object: 'list' as const, data: targets.map(({ target, breaker }) => ({ target, breaker })), at };
  },
};
