import { defineOperation, ROLES } from '../operation.js';
import { ProviderStatus } from '../schemas/providers.js';

export const providersOperations = [
  defineOperation({
    id: 'providers.status',
    cli: ['providers', 'status'],
    method: 'GET',
    path: '/providers/status',
    response: ProviderStatus,
    auth: ['api_key'],
    roles: ROLES.admin,
    summary: "Each upstream target's breaker, requests, error rate and median latency, as the answering instance sees them",
    description:
      'Per instance: behind a load balancer each instance answers with its own view (the breakers are shared on PostgreSQL). ' +
      'Targets appear once they have been tried or their breaker has moved.',
  }),
] as const;
