import { chatHistorySearch } from './chat-history-search.js';
import { chatOutput } from './chat-output.js';
import { chatStart } from './chat-start.js';
import { coldStart } from './cold-start.js';
import { gatewayLoad, gatewayLoadChildren } from './gateway-load.js';
import { gatewaySoak } from './gateway-soak.js';
import { hold } from './hold.js';
import { memorySearch } from './memory-search.js';
import { routeLoad } from './route-load.js';
import { settleKeys } from './settle-keys.js';
import { usageReports } from './usage-reports.js';
import { CHILD_ROLE_ENV } from './lib/processes.js';

/** `npm run bench [name…]`: runs the benchmarks (all, or those named) and prints their tables. */
const benches: Record<string, () => Promise<void>> = {
  'cold-start': coldStart,
  'chat-start': chatStart,
  'chat-output': chatOutput,
  'chat-history-search': chatHistorySearch,
  'gateway-load': gatewayLoad,
  'gateway-soak': gatewaySoak,
  'route-load': routeLoad,
  hold,
  'settle-keys': settleKeys,
  'memory-search': memorySearch,
  'usage-reports': usageReports,
};

/** The processes that benchmarks start run this bundle again, in one of these roles (lib/processes.ts). */
const children: Record<string, () => Promise<void>> = { ...gatewayLoadChildren };

const role = process.env[CHILD_ROLE_ENV];
if (role) {
  const child = children[role];
  if (!child) throw new Error(`unknown benchmark child role: ${role}`);
  await child();
} else {
  const wanted = process.argv.slice(2);
  for (const [name, run] of Object.entries(benches)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    await run();
  }
}
