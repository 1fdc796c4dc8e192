import { buildOpenApiDocument } from '../../src/contract/openapi.js';
import type { HandlerTable } from './types.js';

let openApiDocument: ReturnType<typeof buildOpenApiDocument> | undefined;

export const systemHandlers: HandlerTable = {
  health: async ({ services }) => ({
    status: 'ok',
    version: services.version,
    time: services.clock.now().toISOString(),
    payments: services.processors.mode,
  }),

  jwks: async ({ services }) => services.signingKeys.jwks(),

  openapi: async ({ services, request }) => {
    openApiDocument ??= buildOpenApiDocument({ version: services.version });
    return { ...openApiDocument, servers: [{ url: request.origin }] };
  },
};
