import { z } from 'zod';
import { Timestamp } from './common.js';

export const BreakerState = z.enum(['closed', 'open', 'half_open']).describe("The target's circuit breaker");

/** One upstream target (`<provider>/<model>`) as the answering instance has seen it. */
export const ProviderTargetStatus = z.object({
  target: z.string().describe('<provider>/<model>'),
  breaker: BreakerState,
  requests: z.number().int().min(0).describe('Upstream attempts since this instance started'),
  errors: z.number().int().min(0).describe('Failed attempts since this instance started'),
  error_rate: z.number().min(0).max(1).nullable().describe('Share of the last `window` attempts that failed; null before any'),
  p50_latency_ms: z.number().min(0).nullable().describe('Median latency of the last `window` attempts; null before any'),
  last_outcome: z.string().nullable().describe('ok, or the error class of the last attempt'),
  last_at: Timestamp.nullable(),
});

export const ProviderStatus = z.object({
  object: z.literal('list'),
  data: z.array(ProviderTargetStatus),
  window: z.number().int().positive().describe('How many recent attempts error_rate and p50_latency_ms cover'),
  at: Timestamp,
});
