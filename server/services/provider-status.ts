import type { Clock } from '../clock.js';
import type { TargetStatus } from '../metrics/target-status.js';

/**
 * The upstream targets' state as this instance sees it (the Providers screen): read from the
 * metrics observer's in-memory view; none when the server runs without one.
 */
export function createProviderStatusService(deps: { clock: Clock; targets?: () => Promise<TargetStatus[]> }) {
  return {
    async status() {
      return { targets: (await deps.targets?.()) ?? [], at: deps.clock.now().toISOString() };
    },
  };
}
