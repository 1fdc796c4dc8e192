import { callerOf } from '../services/inference/caller.js';
import { toolCatalog } from '../services/tool-catalog.js';
import type { HandlerTable } from './types.js';

export const inferenceHandlers: HandlerTable = {
  'chat.completions': async ({ principal, body, services, request }) =>
    services.chat.complete(callerOf(principal), body, request.id, request.signal),

  'embeddings.create': async ({ principal, body, services, request }) =>
    services.embeddings.create(callerOf(principal), body, request.id, request.signal),

  'responses.create': async ({ principal, body, services, request }) =>
    services.responses.create(callerOf(principal), body, request.id, request.signal),

  'responses.get': async ({ principal, params, query, services, request }) =>
    services.responses.get(callerOf(principal), params.id, query, request.signal),

  'responses.delete': async ({ principal, params, services }) => services.responses.delete(callerOf(principal), params.id),

  'responses.input-items': async ({ principal, params, query, services }) => services.responses.inputItems(callerOf(principal), params.id, query),

  'responses.cancel': async ({ principal, params, services }) => services.responses.cancel(callerOf(principal), params.id),

  // Anthropic's SDKs and Claude Code send anthropic-version: they get Anthropic's shapes.
  'models.list': async ({ query, services, request }) =>
    request.headers['anthropic-version'] ? services.models.listAnthropic(query) : services.models.list(query),

  'models.get': async ({ params, services, request }) => services.models.get(params.model, request.headers['anthropic-version'] ? 'anthropic' : 'openai'),

  'tools.list': async () => ({ object: 'list', data: toolCatalog }),
};
