import { z } from 'zod';
import { Timestamp } from './common.js';

export const BreakerState = z.enum(['closed', 'open', 'half_open']).describe("The target's circuit breaker");

/**
 * One upstream target (`<provider>/<model>`) the server serves and its circuit breaker: the
 * gateway's own state, which every developer's requests meet alike. No traffic figure: those are
 * made of every developer's requests, so they are the operator's (`GET /metrics`).
 */
export const ProviderTargetStatus = z.object({
  target: z.string().describe('<provider>/<model>'),
  breaker: BreakerState,
});

export const ProviderStatus = z.object({
  object: z.literal('list'),
  data: z.array(ProviderTargetStatus),
  at: Timestamp,
});
