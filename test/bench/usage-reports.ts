import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { BENCH_MODEL, chatLoadRequest, exchange, startBenchSvc, startBenchUpstream } from './gateway-load.js';
import { runLoad, type LoadRequest, type LoadResult } from './lib/load.js';
import { tempHome, type BenchChild } from './lib/processes.js';
import { percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { fillUsage, type FilledUsage } from './lib/usage-fill.js';

const ROWS = Number(process.env.BENCH_USAGE_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = 32;
/** Calls of each report, one at a time, after a few not measured. */
const CALLS = 50;
const WARMUP_CALLS = 5;
/** Target (issue "usage that stays fast"): a report answers within this at p50 on the full database. */
const MAX_REPORT_MS = 20;

const API = '/api/v1';

/** The reports, over their default windows (30 days: every row of the full database). */
function reports(appUuid: string): { name: string; path: string }[] {
  const app = `${API}/developer/apps/${appUuid}`;
  return [
    { name: 'usage models (30d)', path: `${API}/usage/models` },
    { name: 'usage models (24h)', path: `${API}/usage/models?period=24h` },
    { name: 'app usage, day buckets (30d)', path: `${app}/usage` },
    { name: 'app usage, hour buckets (30d)', path: `${app}/usage?granularity=hour` },
    { name: 'app usage per user (30d)', path: `${app}/usage/users` },
  ];
}

/** Milliseconds of `CALLS` calls of a GET, one after another on one connection. */
async function timeCalls(origin: string, path: string, key: string): Promise<number[]> {
  const client = new Client(origin);
  const times: number[] = [];
  try {
    for (let i = 0; i < WARMUP_CALLS + CALLS; i++) {
      const started = performance.now();
      const answer = await client.request({ path, method: 'GET', headers: { authorization: `Bearer ${key}` } });
      const text = await answer.body.text();
      if (answer.statusCode !== 200) throw new Error(`usage-reports: ${path} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
      if (i >= WARMUP_CALLS) times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return times;
}

const load = (origin: string, request: LoadRequest, connections: number, pid: number | undefined) =>
  runLoad({ origin, request, connections, warmupMs: WARMUP_SECONDS * 1000, durationMs: SECONDS * 1000, pids: [pid] });

interface Measured {
  reports: Map<string, number[]>;
  chat: LoadResult;
  /** Chat load with one more connection asking for the 30-day model report again and again. */
  mixedChat: LoadResult;
  mixedReport: LoadResult;
}

async function measure(svc: BenchChild<{ url: string }>, key: string, appUuid: string): Promise<Measured> {
  const origin = svc.info.url;
  const measured = new Map<string, number[]>();
  for (const report of reports(appUuid)) measured.set(report.name, await timeCalls(origin, report.path, key));
  const chat = chatLoadRequest(`${API}/chat/completions`, BENCH_MODEL, { authorization: `Bearer ${key}` }, 'non-streamed');
  const report: LoadRequest = { method: 'GET', path: `${API}/usage/models`, headers: { authorization: `Bearer ${key}` } };
  const chatAlone = await load(origin, chat, CONNECTIONS, svc.child.pid);
  const [mixedChat, mixedReport] = await Promise.all([load(origin, chat, CONNECTIONS - 1, svc.child.pid), load(origin, report, 1, undefined)]);
  return { reports: measured, chat: chatAlone, mixedChat, mixedReport };
}

/** The owner's requests in the filled span, as the 30-day model report of its key counts them. */
async function reportedRequests(origin: string, key: string, filled: FilledUsage): Promise<number> {
  const { status, text } = await exchange(origin, `${API}/usage/models?start=${filled.first}&end=${filled.last}`, {
    method: 'GET',
    headers: { authorization: `Bearer ${key}` },
  });
  if (status !== 200) throw new Error(`usage-reports: usage models answered ${status}: ${text}`);
  return (JSON.parse(text) as { data: { requests: number }[] }).data.reduce((sum, row) => sum + row.requests, 0);
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const rps = (result: LoadResult) => (result.ok / result.seconds).toFixed(0);

/**
 * Usage reports and request throughput on an empty database and on one holding `BENCH_USAGE_ROWS`
 * (default 1,000,000) usage rows written straight into its SQLite file, rollups built by the
 * migration's backfill: each report's latency one call at a time, then chat completions against
 * the fake upstream (gateway-load's), alone and with a client asking for a report non-stop.
 */
export async function usageReports(): Promise<void> {
  const dir = tempHome('svc-bench-usage-');
  const children: BenchChild<unknown>[] = [];
  const results = new Map<'empty' | 'full', Measured>();
  let filled: FilledUsage | undefined;
  let check = '';
  try {
    children.push(await startBenchUpstream(dir));
    for (const database of ['empty', 'full'] as const) {
      const file = join(dir, `${database}.db`);
      let svc = await startBenchSvc(dir, file);
      children.push(svc);
      const key = svc.info.key;
      if (!key) throw new Error('usage-reports: svc did not create an owner on a new database');
      const [app] = (JSON.parse((await exchange(svc.info.url, `${API}/developer/apps`, { method: 'GET', headers: { authorization: `Bearer ${key}` } })).text) as {
        data: { app_uuid: string }[];
      }).data;
      if (database === 'full') {
        await svc.stop();
        filled = fillUsage(file, ROWS, Date.now());
        svc = await startBenchSvc(dir, file);
        children.push(svc);
        const reported = await reportedRequests(svc.info.url, key, filled);
        check = `the owner's ${filled.appRows} rows, reported as ${reported} requests ${reported === filled.appRows ? 'PASS' : 'FAIL'}`;
      }
      results.set(database, await measure(svc, key, app?.app_uuid ?? ''));
      await svc.stop();
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }

  const empty = results.get('empty') as Measured;
  const full = results.get('full') as Measured;
  const rows = [...full.reports.keys()].map((name) => {
    const before = empty.reports.get(name) as number[];
    const after = full.reports.get(name) as number[];
    const p50 = percentile(after, 50);
    return [name, ms(percentile(before, 50)), ms(p50), ms(percentile(after, 99)), p50 <= MAX_REPORT_MS ? 'PASS' : 'FAIL'];
  });
  printTable(
    `Usage reports, one call at a time (${CALLS} each): empty database vs ${ROWS.toLocaleString('en')} usage rows (target p50 ≤ ${MAX_REPORT_MS} ms)`,
    ['report', 'p50 empty', 'p50 full', 'p99 full', 'target'],
    rows,
  );
  const loadRow = (name: string, result: LoadResult) => [name, rps(result), ms(percentile(result.latencies, 50)), ms(percentile(result.latencies, 99)), String(result.failures)];
  printTable(
    `Request throughput, ${CONNECTIONS} connections, ${SECONDS} s each after ${WARMUP_SECONDS} s warm-up (non-streamed chat through the fake upstream)`,
    ['case', 'req/s', 'p50', 'p99', 'non-200'],
    [
      loadRow('chat, empty database', empty.chat),
      loadRow('chat, full database', full.chat),
      loadRow('chat + reports, empty: chat', empty.mixedChat),
      loadRow('chat + reports, empty: 30d report', empty.mixedReport),
      loadRow('chat + reports, full: chat', full.mixedChat),
      loadRow('chat + reports, full: 30d report', full.mixedReport),
    ],
  );
  if (filled) {
    process.stdout.write(
      `\nfull database: ${ROWS.toLocaleString('en')} usage rows over 30 days written in ${filled.insertSeconds.toFixed(1)} s, ` +
        `rollups backfilled in ${filled.backfillSeconds.toFixed(1)} s (${Object.entries(filled.rollupRows)
          .map(([table, rows]) => `${table} ${rows.toLocaleString('en')} rows`)
          .join(', ')}); ${check}\n`,
    );
  }
}
