import { coldStart } from './cold-start.js';

/** `npm run bench [name…]`: runs the benchmarks (all, or those named) and prints their tables. */
const benches: Record<string, () => Promise<void>> = {
  'cold-start': coldStart,
};

const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await run();
}
