import { callerOf } from '../services/inference/caller.js';
import type { HandlerTable } from './types.js';

/** The Anthropic Messages API: relayed to Anthropic upstreams, translated for the others (the messages service). */
export const messagesHandlers: HandlerTable = {
  'messages.create': async ({ principal, body, services, request }) => services.messages.create(callerOf(principal), body, request),

  'messages.count-tokens': async ({ principal, body, services, request }) => services.messages.countTokens(callerOf(principal), body, request),
};
