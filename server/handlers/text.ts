import type { HandlerTable } from './types.js';

export const textHandlers: HandlerTable = {
  'text.lookup': async ({ principal, params, query, services }) => services.text.lookup(principal, params.channel, query.identifier),
  'text.register': async ({ principal, params, body, services }) => services.text.register(principal, params.channel, body),
  'text.status': async ({ principal, params, services }) => services.text.status(principal, params.channel),
  'text.unregister': async ({ principal, params, services }) => services.text.unregister(principal, params.channel),
};
