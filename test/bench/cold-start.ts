import { formatMs, median, percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startSvcServer, SVC_BIN, tempHome, timeRun } from './lib/processes.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;

/**
 * Cold start of the CLI next to bare Node. Target (issue: the spine): `svc --version` and
 * `svc api developer apps list` within 2.5× of `node -e 0`.
 */
export async function coldStart(): Promise<void> {
  const home = tempHome();
  const server = await startSvcServer(home);
  // `svc serve --port 0` saves the key but not its passing port: the URL comes from the environment.
  const env = { PATH: process.env.PATH, SVC_HOME: home, SVC_API_URL: server.url };
  const cases: [string, string[]][] = [
    ['node -e 0', ['-e', '0']],
    ['svc --version', [SVC_BIN, '--version']],
    ['svc api developer apps list', [SVC_BIN, 'api', 'developer', 'apps', 'list']],
  ];
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Interleaved, so a noisy moment on the machine hits every case alike.
      for (const [name, args] of cases) {
        const ms = await timeRun(process.execPath, args, env);
        if (i >= WARMUP) samples.get(name)?.push(ms);
      }
    }
  } finally {
    await server.stop();
  }
  const bare = median(samples.get('node -e 0') ?? []);
  printTable(
    `Cold start (${RUNS} runs each, interleaved; target: ≤ 2.5× bare node)`,
    ['command', 'median', 'p90', 'ratio to node'],
    cases.map(([name]) => {
      const values = samples.get(name) ?? [];
      return [name, formatMs(median(values)), formatMs(percentile(values, 90)), `${(median(values) / bare).toFixed(2)}×`];
    }),
  );
}
