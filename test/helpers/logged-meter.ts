import type { Meter } from '../../server/services/inference/meter.js';

/**
 * A meter for a relay's steps: it records in `log` when it settles (once, as a meter does), and
 * charges 0.02 credits; its settlement fails with `failure` when given.
 */
export function loggedMeter(log: string[], failure?: Error): Meter {
  let settled = false;
  const meter: Pick<Meter, 'firstToken' | 'settle'> = {
    firstToken: () => {},
    settle: async (counted, status) => {
      if (settled) return { chargedMicro: 0 };
      settled = true;
      log.push(`settle ${status} ${counted.outputTokens}`);
      if (failure) throw failure;
      return { chargedMicro: 20_000 };
    },
  };
  return meter as Meter;
}
