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
    summary: "Each upstream target the server serves and its circuit breaker's state",
    description:
      'Every `<provider>/<model>` the server serves, in its configured order, with its breaker as the breaker store has it ' +
      '(shared by every instance on PostgreSQL). Attempts, errors and latencies are counted over every developer’s requests, ' +
      'so they are not here: they are the operator’s, on `GET /metrics`.',
  }),
] as const;
