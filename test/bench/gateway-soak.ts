import { rmSync } from 'node:fs';
import { BENCH_MODEL, chatLoadRequest, exchange, startBenchSvc, startBenchUpstream, type Mode } from './gateway-load.js';
import { runLoad } from './lib/load.js';
import { rssBytes, tempHome, type BenchChild } from './lib/processes.js';
import { printTable } from './lib/table.js';

/** The soak (#28): RSS after the long run within this much of RSS after the first checkpoint. */
const MAX_GROWTH = 0.15;
const CHECKPOINTS = (process.env.BENCH_SOAK_REQUESTS ?? '5000,20000,50000').split(',').map(Number);
const CONNECTIONS = 32;
/** Non-streamed and streamed requests take turns in slices of this many. */
const SLICE = 2_500;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * svc on a SQLite file under a long load (chat completions, non-streamed and streamed in turns,
 * 32 connections): its resident memory at each checkpoint, and whether it stays flat between the
 * first and the last (`BENCH_SOAK_REQUESTS`, default `5000,20000,50000`). Memory that grows with
 * the requests served (a cache without bound, a listener left behind) shows here.
 */
export async function gatewaySoak(): Promise<void> {
  const dir = tempHome('svc-bench-soak-');
  const children: BenchChild<{ url: string; key?: string }>[] = [];
  const rows: string[][] = [];
  let served = 0;
  let usageRows: unknown;
  let verdict = '';
  try {
    children.push(await startBenchUpstream(dir));
    const svc = await startBenchSvc(dir);
    children.push(svc);
    const headers = { authorization: `Bearer ${svc.info.key as string}` };
    const started = performance.now();
    let first = Number.NaN;
    for (const checkpoint of CHECKPOINTS) {
      while (served < checkpoint) {
        const mode: Mode = Math.floor(served / SLICE) % 2 === 0 ? 'non-streamed' : 'streamed';
        const result = await runLoad({
          origin: svc.info.url,
          request: chatLoadRequest('/api/v1/chat/completions', BENCH_MODEL, headers, mode),
          connections: CONNECTIONS,
          warmupMs: 0,
          durationMs: 600_000,
          maxRequests: Math.min(SLICE, checkpoint - served),
        });
        if (result.failures > 0) throw new Error(`gateway-soak: ${result.failures} requests were not answered 200`);
        served += result.served;
      }
      const rss = rssBytes(svc.child.pid);
      if (Number.isNaN(first)) first = rss;
      const growth = rss / first - 1;
      rows.push([String(served), mb(rss), `${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%`, `${((performance.now() - started) / 1000).toFixed(0)} s`]);
      verdict = `RSS after ${served} requests ${(growth * 100).toFixed(1)}% over RSS after ${CHECKPOINTS[0]} ${growth <= MAX_GROWTH ? 'PASS' : 'FAIL'} (target ≤ ${MAX_GROWTH * 100}%)`;
    }
    const usage = await exchange(svc.info.url, '/api/v1/usage/models', { method: 'GET', headers });
    usageRows = (JSON.parse(usage.text) as { data?: { model: string; requests: number }[] }).data?.find((row) => row.model === BENCH_MODEL)?.requests;
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Gateway soak: svc on SQLite, ${CONNECTIONS} connections, non-streamed and streamed chat completions in turns of ${SLICE}`,
    ['requests', 'RSS', 'vs first', 'elapsed'],
    rows,
  );
  process.stdout.write(`${verdict}\nusage rows: ${usageRows} for ${served} requests answered 200 ${usageRows === served ? 'PASS' : 'FAIL'}\n`);
}
