import { callerOf } from '../services/inference/caller.js';
import type { HandlerTable } from './types.js';

export const inferenceHandlers: HandlerTable = {
  'chat.completions': async ({ principal, body, services, request }) =>
    services.chat.complete(callerOf(principal), body, request.id, request.signal),
};
