import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_MODEL, chatLoadRequest, exchange, startBenchSvc, startBenchUpstream, type Mode } from './gateway-load.js';
import { runLoad } from './lib/load.js';
import { tempHome, type BenchChild } from './lib/processes.js';
import { percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { freePort } from '../helpers/ports.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
/** Target (issue 25): a route whose first target is marked down adds at most this at p50 over the model called directly. */
const MAX_P50_ADDED_MS = 0.1;
const ROUTE = 'route/bench';
const DOWN = 'down/gpt-fake';
const MODES: Mode[] = ['non-streamed', 'streamed'];
/** Rounds of direct and route, one after the other: the p50 of each is the median of its rounds' p50s, so drift hits both alike. */
const ROUNDS = 3;

/**
 * The route case (`npm run bench route-load`): svc on a SQLite file in front of the fake upstream,
 * the model called directly against `route/bench`, a fallback route whose first target is a
 * provider that refuses connections and whose breaker has opened — so every request skips it
 * unsent and is served by the second target. One connection at a time, non-streamed and
 * streamed: what the route adds to a request's latency at p50.
 */
export async function routeLoad(): Promise<void> {
  const dir = tempHome('svc-bench-route-');
  const children: BenchChild<{ url: string; key?: string }>[] = [];
  const p50s = new Map<string, number[]>();
  let failures = 0;
  try {
    const upstream = await startBenchUpstream(dir);
    children.push(upstream);
    // The gateway-load providers file, with a provider that is down and the route over both.
    const file = join(dir, 'providers.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { providers: unknown[] };
    const down = { id: 'down', type: 'openai', base_url: `http://127.0.0.1:${await freePort()}/v1`, retries: 0, models: [{ id: 'gpt-fake', input_price: 0.15, output_price: 0.6 }] };
    const routes = { bench: { strategy: 'fallback', targets: [{ model: DOWN }, { model: BENCH_MODEL }] } };
    writeFileSync(file, JSON.stringify({ providers: [...config.providers, down], routes }));
    const svc = await startBenchSvc(dir);
    children.push(svc);
    const origin = svc.info.url;
    const headers = { authorization: `Bearer ${svc.info.key as string}` };
    const path = '/api/v1/chat/completions';

    // Mark the first target down: its breaker opens after five refused connections.
    const request = chatLoadRequest(path, ROUTE, headers, 'non-streamed');
    for (let i = 0; i < 5; i++) await exchange(origin, path, { method: 'POST', headers: request.headers, body: request.body });
    const check = await fetch(`${origin}${path}`, { method: 'POST', ...chatLoadRequest(path, ROUTE, headers, 'non-streamed') });
    const attempts = check.headers.get('x-svc-attempts');
    if (check.status !== 200 || attempts !== `${DOWN}=circuit_open;0ms, ${BENCH_MODEL}=ok`) {
      throw new Error(`route-load: the first target is not marked down (${check.status}, x-svc-attempts: ${attempts})`);
    }

    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of MODES) {
        for (const model of [BENCH_MODEL, ROUTE]) {
          const result = await runLoad({
            origin,
            request: chatLoadRequest(path, model, headers, mode),
            connections: 1,
            warmupMs: WARMUP_SECONDS * 1000,
            durationMs: SECONDS * 1000,
            pids: [svc.child.pid],
          });
          failures += result.failures;
          const key = `${model} ${mode}`;
          p50s.set(key, [...(p50s.get(key) ?? []), percentile(result.latencies, 50)]);
        }
      }
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const mode of MODES) {
    const direct = median(p50s.get(`${BENCH_MODEL} ${mode}`) ?? []);
    const route = median(p50s.get(`${ROUTE} ${mode}`) ?? []);
    const added = route - direct;
    rows.push([BENCH_MODEL, mode, `${direct.toFixed(3)} ms`, '']);
    rows.push([`${ROUTE} (first target down)`, mode, `${route.toFixed(3)} ms`, `${added >= 0 ? '+' : ''}${added.toFixed(3)} ms`]);
    verdicts.push(`${mode}: ${added <= MAX_P50_ADDED_MS ? 'PASS' : 'FAIL'}`);
  }
  printTable(
    `Route vs direct, one connection, p50 (median of ${ROUNDS} rounds of ${SECONDS} s; target: the route adds ≤ ${MAX_P50_ADDED_MS} ms)`,
    ['model', 'mode', 'p50', 'added'],
    rows,
  );
  process.stdout.write(`${verdicts.join(', ')}; ${failures} failed requests\n`);
}
