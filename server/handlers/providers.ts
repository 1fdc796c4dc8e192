import { WINDOW } from '../metrics/target-status.js';
import type { HandlerTable } from './types.js';

export const providersHandlers: HandlerTable = {
  'providers.status': async ({ services }) => {
    const { targets, at } = await services.providerStatus.status();
    return {
      object: 'list' as const,
      data: targets.map((t) => ({
        target: t.target,
        breaker: t.breaker,
        requests: t.requests,
        errors: t.errors,
        error_rate: t.errorRate,
        p50_latency_ms: t.p50LatencyMs,
        last_outcome: t.lastOutcome,
        last_at: t.lastAt,
      })),
      window: WINDOW,
      at,
    };
  },
};
