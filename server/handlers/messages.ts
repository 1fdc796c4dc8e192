import { callerOf } from '../services/inference/caller.js';
import type { HandlerTable } from './types.js';

/** The Anthropic Messages API: translated to chat completions by the messages service. */
export const messagesHandlers: HandlerTable = {
  'messages.create': async ({ principal, body, services, request }) =>
    services.messages.create(callerOf(principal), body, request.id, request.signal),

  'messages.count-tokens': async ({ body, services }) => services.messages.countTokens(body),
};
