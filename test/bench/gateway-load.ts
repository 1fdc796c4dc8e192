import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { checkLedger } from '../../server/operator.js';
import { withoutPassword } from '../../server/store/location.js';
import { connectionTarget, poolAt } from '../../server/store/postgres/database.js';
import { Client, Pool } from 'undici';
import type { startServer as StartServer } from '../../server/app.js';
import { runLoad, type LoadRequest, type LoadResult } from './lib/load.js';
import { postgresCpuSeconds, REPO, reportReady, startChild, tempHome, type BenchChild } from './lib/processes.js';
import { percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/**
 * Each case is measured at steady state, after this long under the same load. A fresh svc process
 * takes seconds to get up to speed (V8 compiles its hot path as it runs, on the same two cores):
 * second by second at 32 connections, one run gave 434, 1,041, 2,011, 2,709, 3,234, 4,122 req/s
 * and then 4,100–4,800, where the bare proxy gave 1,114, 3,791 and then 6,800–7,700. With one
 * second of warm-up the measured window was mostly that climb, and the ratios measured how fast
 * each process warms more than what it costs once warm. How fast a fresh process gets up to speed
 * is reported apart (its first case's warm-up).
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
/**
 * The warm-up of a target's first case, whose processes are fresh. Two instances behind one
 * balancer each see half the requests, so each takes twice as long to get up to speed: after 6 s
 * two fresh instances on PostgreSQL did 743 req/s at 1,341 µs a request, and 1,241–1,299 req/s at
 * ~600 µs from 7 s to 18 s.
 */
const COLD_WARMUP_SECONDS = Number(process.env.BENCH_COLD_WARMUP_SECONDS ?? 15);
/** Under load (the throughput), and one at a time (the latency a request pays by itself). */
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '32,1').split(',').map(Number);
/** The warm-up of the bare proxy's measures beside each svc case (its process is warm already). */
const BESIDE_WARMUP_SECONDS = Number(process.env.BENCH_BESIDE_WARMUP_SECONDS ?? 2);
/**
 * The targets of issue #28, svc against the bare proxy: under load (many connections), a share of
 * its requests per second (and on SQLite a multiple of its CPU per request); one at a time, the
 * time added at p50.
 */
const TARGETS = {
  underLoad: {
    svc: { 'non-streamed': 0.5, streamed: 0.4 },
    'svc pg': { 'non-streamed': 0.25, streamed: 0.25 },
    'svc pg ×2': { 'non-streamed': 0.25, streamed: 0.25 },
  },
  maxCpuMultiple: { svc: 3 } as Partial<Record<string, number>>,
  maxAddedP50Ms: { svc: 0.4, 'svc pg': 1.5, 'svc pg ×2': 1.5 },
} as const;

const MODEL = 'gpt-fake';
const PROVIDER = 'fake';
const KEY_ENV = 'FAKE_UPSTREAM_KEY';
const PIECES = ['This ', 'is ', 'a ', 'fixed ', 'answer ', 'from ', 'the ', 'fake ', 'upstream', '.'];
const ANSWER = PIECES.join('');
const USAGE = { prompt_tokens: 12, completion_tokens: PIECES.length, total_tokens: 12 + PIECES.length };

/** The fake upstream's two answers, built once: a chat completion, and its SSE stream with usage. */
function upstreamAnswers() {
  const base = { id: 'chatcmpl-bench', created: 1_700_000_000, model: MODEL, system_fingerprint: 'fp_bench' };
  const completion = {
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: USAGE,
  };
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, usage })}\n\n`;
  const delta = (d: object, finish: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const events = [
    ...PIECES.map((content, i) => delta(i === 0 ? { role: 'assistant', content } : { content })),
    delta({}, 'stop'),
    chunk([], USAGE),
    'data: [DONE]\n\n',
  ];
  return { json: Buffer.from(JSON.stringify(completion)), sse: Buffer.from(events.join('')) };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Child: the fake upstream, as cheap as a node:http server gets (fixed answers, no parsing). */
async function upstreamChild(): Promise<void> {
  const { json, sse } = upstreamAnswers();
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
      } else if (Buffer.concat(chunks).includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked' });
        res.end(sse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': json.length });
        res.end(json);
      }
    });
  });
  reportReady({ url: await listen(server) }, () => closeServer(server));
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'host']);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Child: the bare proxy, node:http in front of an undici pool, passing bytes through (the ceiling for a Node gateway). */
async function proxyChild(): Promise<void> {
  const pool = new Pool(requiredEnv('BENCH_UPSTREAM_URL'), { connections: 128, keepAliveTimeout: 30_000 });
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      pool.stream(
        { path: req.url ?? '/', method: 'POST', headers: forwardable(req.headers), body: Buffer.concat(chunks) },
        ({ statusCode, headers }) => res.writeHead(statusCode, forwardable(headers)),
        (error) => {
          if (!error) return;
          if (res.headersSent) res.destroy();
          else res.writeHead(502).end();
        },
      );
    });
  });
  reportReady({ url: await listen(server) }, async () => {
    await closeServer(server);
    await pool.close();
  });
}

/**
 * Child: svc as `svc serve` runs it (the built bundle), with a priced model on the fake upstream,
 * on a SQLite file or on the PostgreSQL database `BENCH_SVC_DB` (where a second instance joins
 * the first: it creates no owner, and the first one's key works on it).
 */
async function svcChild(): Promise<void> {
  const dir = requiredEnv('BENCH_SVC_DIR');
  const bundle = join(REPO, 'dist/server/app.js');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build (npm run bench does)`);
  const { startServer } = (await import(pathToFileURL(bundle).href)) as { startServer: typeof StartServer };
  const server = await startServer({
    dbPath: process.env.BENCH_SVC_DB ?? join(dir, 'svc.db'),
    port: 0,
    providersFile: join(dir, 'providers.json'),
    env: { [KEY_ENV]: 'sk-bench-upstream-key' },
    // Far more than the run can spend: the ledger must not run dry mid-run.
    startingGrantCredits: 10_000_000,
    // A load test is one key at thousands of requests a minute: far past the default limits.
    rateLimitRequestsPerMinute: 1_000_000_000,
    rateLimitTokensPerMinute: 1_000_000_000,
    log: (line) => process.stderr.write(`svc: ${line}\n`),
  });
  if (!server.bootstrap && !process.env.BENCH_SVC_DB) throw new Error('svc: expected a fresh database');
  reportReady({ url: server.url, key: server.bootstrap?.liveKey }, () => server.close());
}

/** The processes this benchmark starts (index.ts runs the bundle again in one of these roles). */
export const gatewayLoadChildren: Record<string, () => Promise<void>> = {
  'gateway-load/upstream': upstreamChild,
  'gateway-load/proxy': proxyChild,
  'gateway-load/svc': svcChild,
};

/** The fake upstream in a process of its own, and the providers file in `dir` that svc children read, naming it. */
export async function startBenchUpstream(dir: string): Promise<BenchChild<{ url: string }>> {
  const upstream = await startChild<{ url: string }>('gateway-load/upstream');
  const providers = [
    {
      id: PROVIDER,
      type: 'openai',
      base_url: `${upstream.info.url}/v1`,
      api_key_env: KEY_ENV,
      models: [{ id: MODEL, input_price: 0.15, output_price: 0.6 }],
    },
  ];
  writeFileSync(join(dir, 'providers.json'), JSON.stringify({ providers }));
  return upstream;
}

/**
 * svc in a process of its own, with the providers file of `dir`, on `database` (a SQLite file or a
 * PostgreSQL URL; by default a new SQLite file in `dir`). `key` is the owner's live key when this
 * start created the owner.
 */
export function startBenchSvc(dir: string, database?: string, nodeArgs: string[] = []): Promise<BenchChild<{ url: string; key?: string }>> {
  return startChild<{ url: string; key?: string }>('gateway-load/svc', {
    env: { BENCH_SVC_DIR: dir, ...(database ? { BENCH_SVC_DB: database } : {}) },
    nodeArgs,
  });
}

/** The model svc serves from the fake upstream. */
export const BENCH_MODEL = `${PROVIDER}/${MODEL}`;

const SVC_TARGETS = ['svc', 'svc pg', 'svc pg ×2'] as const;

interface Target {
  name: 'direct' | 'bare proxy' | (typeof SVC_TARGETS)[number];
  /** Several for instances behind a balancer: the load's connections take turns among them. */
  origins: string[];
  path: string;
  model: string;
  headers: Record<string, string>;
  /** The processes that answer (for `direct`, the upstream's). */
  pids: (number | undefined)[];
  /** svc's database (a SQLite file or a PostgreSQL URL), checked after the load as `svc serve --check` does. */
  database?: string;
  /** CPU seconds its PostgreSQL has used so far, where that runs on this machine. */
  databaseCpu?: () => number;
}

const ALL_MODES = ['non-streamed', 'streamed'] as const;
export type Mode = (typeof ALL_MODES)[number];
/** `BENCH_MODES=streamed` measures one mode alone (a CPU profile of one path). */
const MODES = ALL_MODES.filter((mode) => (process.env.BENCH_MODES ?? ALL_MODES.join(',')).split(',').includes(mode));

/** A chat completion, streamed or not, to `path` (the upstream's or svc's) with `headers`. */
export function chatLoadRequest(path: string, model: string, headers: Record<string, string>, mode: Mode): LoadRequest {
  const streamed = mode === 'streamed' ? { stream: true, stream_options: { include_usage: true } } : {};
  const body = { model, messages: [{ role: 'user', content: 'Say something short.' }], max_tokens: 64, ...streamed };
  return { path, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

const chatRequest = (target: Target, mode: Mode) => chatLoadRequest(target.path, target.model, target.headers, mode);

/** One request outside the load, answered in full. */
export async function exchange(origin: string, path: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }) {
  const client = new Client(origin);
  try {
    const answer = await client.request({ path, ...init });
    return { status: answer.statusCode, text: await answer.body.text() };
  } finally {
    await client.close();
  }
}

/** What is wrong with an answer, or null: the expected text, model and usage, and a stream ended by [DONE]. */
function problemWith(text: string, mode: Mode, model: string): string | null {
  try {
    if (mode === 'non-streamed') {
      const completion = JSON.parse(text);
      if (completion.choices?.[0]?.message?.content !== ANSWER) return 'not the expected content';
      if (completion.model !== model) return `model ${completion.model}, expected ${model}`;
      return completion.usage?.completion_tokens === USAGE.completion_tokens ? null : 'not the expected usage';
    }
    const events = text.split('\n\n').filter((event) => event.length > 0);
    if (events.some((event) => !event.startsWith('data: '))) return 'an event without data';
    if (events.at(-1) !== 'data: [DONE]') return 'no [DONE] at the end';
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
    const content = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
    if (content !== ANSWER) return `content ${JSON.stringify(content)}`;
    if (chunks.some((chunk) => chunk.model !== model)) return `a chunk's model is not ${model}`;
    return chunks.some((chunk) => chunk.usage?.completion_tokens === USAGE.completion_tokens) ? null : 'no usage chunk';
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  }
}

async function verify(target: Target, mode: Mode): Promise<void> {
  const { path, headers, body } = chatRequest(target, mode);
  const { status, text } = await exchange(target.origins[0] as string, path, { method: 'POST', headers, body });
  const problem = status === 200 ? problemWith(text, mode, target.model) : `status ${status}`;
  if (problem) throw new Error(`gateway-load: ${target.name} answered a ${mode} chat wrongly (${problem}): ${text.slice(0, 300)}`);
}

interface Summary {
  rps: number;
  p50: number;
  p99: number;
  ttfb50: number;
  failures: number;
  /** CPU seconds per request of the target's process. */
  cpuPerRequest: number;
  /** CPU seconds per request of its PostgreSQL (NaN for the others, or a PostgreSQL elsewhere). */
  databaseCpuPerRequest: number;
}

function summarize(result: LoadResult): Summary {
  return {
    rps: result.ok / result.seconds,
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
    ttfb50: percentile(result.firstBytes, 50),
    failures: result.failures,
    cpuPerRequest: result.cpu.reduce((sum, seconds) => sum + seconds, 0) / (result.ok + result.failures),
    databaseCpuPerRequest: result.sharedCpu / (result.ok + result.failures),
  };
}

/** Two measures of one case as one: each figure their mean. */
const meanOf = (a: Summary, b: Summary): Summary => ({
  rps: (a.rps + b.rps) / 2,
  p50: (a.p50 + b.p50) / 2,
  p99: (a.p99 + b.p99) / 2,
  ttfb50: (a.ttfb50 + b.ttfb50) / 2,
  failures: a.failures + b.failures,
  cpuPerRequest: (a.cpuPerRequest + b.cpuPerRequest) / 2,
  databaseCpuPerRequest: (a.databaseCpuPerRequest + b.databaseCpuPerRequest) / 2,
});

const ms = (value: number) => `${value.toFixed(2)} ms`;
const microseconds = (seconds: number) => `${(seconds * 1e6).toFixed(0)} µs`;
const plusMs = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

/** How the results of one case (connections, target, mode) are keyed. */
const caseKey = (connections: number, name: Target['name'], mode: Mode) => `${connections} ${name} ${mode}`;

/**
 * The bare proxy as an svc case is compared with: the mean of its measures just before and just
 * after that case (`beside`), else its measures at the start and the end of the run. The machine's
 * speed drifts by as much as twice over minutes, and a run's start and end can be ten minutes from
 * an svc case; the proxy measured beside it ran on the machine as it was then.
 */
function proxyBeside(key: string, beside: Map<string, [Summary, Summary]>, wholeRun: Summary): Summary {
  const pair = beside.get(key);
  return pair ? meanOf(pair[0], pair[1]) : wholeRun;
}

function report(connections: number, results: Map<string, Summary>, targets: Target[], beside: Map<string, [Summary, Summary]>): void {
  const get = (name: Target['name'], mode: Mode) => results.get(caseKey(connections, name, mode)) as Summary;
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const mode of MODES) {
    const direct = get('direct', mode);
    const wholeRunProxy = get('bare proxy', mode);
    const proxyFor = (name: Target['name']) => proxyBeside(caseKey(connections, name, mode), beside, wholeRunProxy);
    for (const { name } of targets) {
      const row = get(name, mode);
      const vsDirect = name !== 'direct';
      const vsProxy = name !== 'direct' && name !== 'bare proxy';
      const proxy = proxyFor(name);
      rows.push([
        name,
        mode,
        row.rps.toFixed(0),
        ms(row.p50),
        ms(row.p99),
        vsDirect ? plusMs(row.p50 - direct.p50) : '',
        vsDirect ? plusMs(row.p99 - direct.p99) : '',
        mode === 'streamed' ? ms(row.ttfb50) : '',
        Number.isNaN(row.cpuPerRequest) ? '?' : microseconds(row.cpuPerRequest),
        Number.isNaN(row.databaseCpuPerRequest) ? '' : microseconds(row.databaseCpuPerRequest),
        String(row.failures),
        vsProxy ? percent(row.rps / proxy.rps) : '',
        vsProxy ? plusMs(row.p50 - proxy.p50) : '',
      ]);
    }
    for (const { name } of targets.filter((target) => target.name.startsWith('svc'))) {
      const svcName = name as (typeof SVC_TARGETS)[number];
      const svc = get(name, mode);
      const proxy = proxyFor(name);
      if (connections > 1) {
        const ratio = svc.rps / proxy.rps;
        const minRatio = TARGETS.underLoad[svcName][mode];
        const cpuMultiple = svc.cpuPerRequest / proxy.cpuPerRequest;
        const maxMultiple = TARGETS.maxCpuMultiple[svcName];
        verdicts.push(
          `  ${name}, ${mode}: req/s ${percent(ratio)} of the bare proxy's (target ≥ ${percent(minRatio)}) ${verdict(ratio >= minRatio)}` +
            (maxMultiple === undefined ? '' : `; CPU per request ${cpuMultiple.toFixed(1)}× its (target ≤ ${maxMultiple}×) ${verdict(cpuMultiple <= maxMultiple)}`),
        );
      } else {
        const added = svc.p50 - proxy.p50;
        const maxAdded = TARGETS.maxAddedP50Ms[svcName];
        verdicts.push(`  ${name}, ${mode}: p50 ${plusMs(added)} over the bare proxy (target ≤ ${maxAdded} ms) ${verdict(added <= maxAdded)}`);
      }
    }
  }
  const failures = [...results.entries()].filter(([key]) => key.startsWith(`${connections} `)).reduce((sum, [, s]) => sum + s.failures, 0);
  printTable(
    `Gateway load on loopback, ${connections} connection${connections === 1 ? '' : 's'}, ${SECONDS} s each after ${WARMUP_SECONDS} s warm-up (a target's first case ${COLD_WARMUP_SECONDS} s)`,
    ['target', 'mode', 'req/s', 'p50', 'p99', 'p50 +direct', 'p99 +direct', 'ttfb p50', 'cpu/req', 'db cpu/req', 'non-200', 'req/s vs proxy', 'p50 +proxy'],
    rows,
  );
  const besideLines = [...beside]
    .filter(([key]) => key.startsWith(`${connections} `))
    .map(([key, [before, after]]) => `${key.slice(`${connections} `.length)}: ${before.rps.toFixed(0)} / ${after.rps.toFixed(0)} req/s, p50 ${ms(before.p50)} / ${ms(after.p50)}`);
  if (besideLines.length > 0) process.stdout.write(`The bare proxy just before / just after each svc case (what its row is compared with):\n  ${besideLines.join('\n  ')}\n`);
  process.stdout.write(`svc against the targets, ${connections} connection${connections === 1 ? '' : 's'}:\n${verdicts.join('\n')}\n`);
  if (failures > 0) process.stdout.write(`  FAIL: ${failures} requests were not answered 200: the numbers above measure errors\n`);
}

/** Whether a database URL names a server on this machine (over loopback or a Unix-domain socket), whose processes /proc can see. */
function onThisMachine(url: string): boolean {
  const target = connectionTarget(new URL(url));
  return target.socket !== null || ['localhost', '127.0.0.1', '[::1]'].includes(new URL(target.href).hostname);
}

/** A pool on a database URL, over the Unix-domain socket it names, if it names one (as svc reads it). */
const connect = (url: string, options: postgres.Options<Record<string, never>>) => poolAt(connectionTarget(new URL(url)), options);

/**
 * A fresh PostgreSQL database for the svc-on-PostgreSQL targets (dropped after the run), on the
 * server of BENCH_DATABASE_URL, else SVC_TEST_DATABASE_URL, else the local one; null (those
 * targets skipped) when none answers.
 */
async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = process.env.BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = connect(server, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  const name = `svc_bench_${Date.now()}_${process.pid}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (error) {
    process.stdout.write(`PostgreSQL at ${withoutPassword(server)} did not answer (${(error as Error).message}): the PostgreSQL rows are skipped.\n`);
    await admin.end({ timeout: 1 });
    return null;
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Load on loopback against a fake upstream, side by side: the upstream directly, a bare
 * pass-through proxy, svc on SQLite, svc on PostgreSQL, and two svc instances on one PostgreSQL
 * database (the load's connections alternate between them, as behind a round-robin balancer);
 * chat completions, non-streamed and streamed. The upstream and each target run in processes of
 * their own; the load comes from this one. Each svc case is compared with the bare proxy measured
 * just before and just after it (the mean of the two, after `BENCH_BESIDE_WARMUP_SECONDS` of
 * warm-up each, default 2); the proxy's own row is the mean of its measures at the start and the
 * end of the run. `BENCH_SECONDS` sets the measured time per case,
 * `BENCH_WARMUP_SECONDS` the load before it (default 5), `BENCH_COLD_WARMUP_SECONDS` the load
 * before a target's first case (default 15), `BENCH_CONNECTIONS` the concurrencies (default
 * `32,1`), and `BENCH_CPU_PROF=DIR` writes CPU profiles of the SQLite svc process and of each
 * target's first PostgreSQL one into DIR.
 */
export async function gatewayLoad(): Promise<void> {
  const dir = tempHome('svc-bench-load-');
  const children: BenchChild<{ url: string; key?: string }>[] = [];
  const results = new Map<string, Summary>();
  let targets: Target[] = [];
  const served = new Map<string, number>();
  const usageRows = new Map<string, unknown>();
  const ledgers = new Map<string, Awaited<ReturnType<typeof checkLedger>>>();
  const proxyTwice: string[] = [];
  /** The bare proxy measured just before and just after each svc case (keyed as `results`). */
  const beside = new Map<string, [Summary, Summary]>();
  /** Each target's rate in the warm-up of its first case: how fast a fresh process gets up to speed. */
  const warmups = new Map<string, string>();
  const database = await benchDatabase();
  try {
    const upstream = await startBenchUpstream(dir);
    children.push(upstream);
    const proxy = await startChild<{ url: string }>('gateway-load/proxy', { env: { BENCH_UPSTREAM_URL: upstream.info.url } });
    children.push(proxy);
    const profile = process.env.BENCH_CPU_PROF;
    const startSvc = async (database?: string, nodeArgs: string[] = []) => {
      const child = await startBenchSvc(dir, database, nodeArgs);
      children.push(child);
      return child;
    };
    const svcTarget = (name: Target['name'], instances: BenchChild<{ url: string; key?: string }>[], key: string, database: string): Target => ({
      name,
      database,
      origins: instances.map((instance) => instance.info.url),
      path: '/api/v1/chat/completions',
      model: BENCH_MODEL,
      headers: { authorization: `Bearer ${key}` },
      pids: instances.map((instance) => instance.child.pid),
    });
    const profileArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    const svc = await startSvc(undefined, profileArgs);
    targets = [
      { name: 'direct', origins: [upstream.info.url], path: '/v1/chat/completions', model: MODEL, headers: {}, pids: [upstream.child.pid] },
      { name: 'bare proxy', origins: [proxy.info.url], path: '/v1/chat/completions', model: MODEL, headers: {}, pids: [proxy.child.pid] },
      svcTarget('svc', [svc], svc.info.key as string, join(dir, 'svc.db')),
    ];
    // Each PostgreSQL target is measured alone: instances of a target not under load would only
    // take CPU from the one that is (two cores here).
    const pgTargets = database ? (['svc pg', 'svc pg ×2'] as const) : [];

    /** One case of a target, after `warmupSeconds` of the same load. */
    const loadCase = async (target: Target, connections: number, mode: Mode, warmupSeconds: number) => {
      const result = await runLoad({
        origin: target.origins,
        request: chatRequest(target, mode),
        connections,
        warmupMs: warmupSeconds * 1000,
        durationMs: SECONDS * 1000,
        pids: target.pids,
        ...(target.databaseCpu ? { sharedCpu: target.databaseCpu } : {}),
      });
      served.set(target.name, (served.get(target.name) ?? 0) + result.served);
      return result;
    };
    const proxyTarget = () => targets.find((target) => target.name === 'bare proxy') as Target;
    const proxyCase = (connections: number, mode: Mode) => loadCase(proxyTarget(), connections, mode, BESIDE_WARMUP_SECONDS).then(summarize);

    /** The target under each load, into `into` (keyed `connections name mode`); an svc case with the bare proxy just before and after it. */
    const load = async (target: Target, into: Map<string, Summary>) => {
      const svc = target.name.startsWith('svc');
      for (const connections of CONNECTIONS) {
        for (const mode of MODES) {
          // The first case of a target is the one its fresh processes warm up in.
          const cold = !warmups.has(target.name);
          const before = svc ? await proxyCase(connections, mode) : null;
          const result = await loadCase(target, connections, mode, cold ? COLD_WARMUP_SECONDS : WARMUP_SECONDS);
          const key = caseKey(connections, target.name, mode);
          if (before) beside.set(key, [before, await proxyCase(connections, mode)]);
          into.set(key, summarize(result));
          if (cold) {
            const rate = result.warmupOk / COLD_WARMUP_SECONDS;
            warmups.set(target.name, `${rate.toFixed(0)} req/s (${percent(rate / (result.ok / result.seconds))} of its measured rate)`);
          }
        }
      }
    };
    const measure = async (target: Target) => {
      for (const mode of ALL_MODES) await verify(target, mode);
      served.set(target.name, ALL_MODES.length);
      await load(target, results);
      // Every request svc answered has its usage row (settled in the same transaction as the charge).
      if (!target.name.startsWith('svc')) return;
      const usage = await exchange(target.origins[0] as string, '/api/v1/usage/models', { method: 'GET', headers: target.headers });
      usageRows.set(
        target.name,
        (JSON.parse(usage.text) as { data?: { model: string; requests: number }[] }).data?.find((row) => row.model === BENCH_MODEL)?.requests,
      );
      // And the ledger balances, as `svc serve --check` proves it: every answered request settled once.
      if (target.database) ledgers.set(target.name, await checkLedger(target.database));
    };
    for (const target of targets) await measure(target);
    for (const name of pgTargets) {
      // A schema of its own per target: the usage rows counted are this target's.
      const schema = name === 'svc pg' ? 'one' : 'two';
      const admin = connect(database!.url, { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE SCHEMA ${schema}`);
      await admin.end();
      const schemaUrl = new URL(database!.url);
      schemaUrl.searchParams.set('search_path', schema);
      const first = await startSvc(schemaUrl.href, profileArgs);
      const instances = [first];
      if (name === 'svc pg ×2') instances.push(await startSvc(schemaUrl.href));
      const target = svcTarget(name, instances, first.info.key as string, schemaUrl.href);
      if (onThisMachine(database!.url)) target.databaseCpu = postgresCpuSeconds;
      targets.push(target);
      await measure(target);
      await Promise.all(instances.map((instance) => instance.stop()));
    }
    // The proxy's own row: the mean of its measures at the start and the end of the run (its
    // percentiles too: an approximation). The svc rows are compared with the proxy measured
    // beside them (proxyBeside): the machine's speed drifts by as much as twice over minutes.
    const again = new Map<string, Summary>();
    await load(proxyTarget(), again);
    for (const [key, second] of again) {
      const first = results.get(key) as Summary;
      proxyTwice.push(`${key.replace(' bare proxy', '')}: ${first.rps.toFixed(0)} then ${second.rps.toFixed(0)} req/s`);
      results.set(key, meanOf(first, second));
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const connections of CONNECTIONS) report(connections, results, targets, beside);
  const firstCase = `${CONNECTIONS[0]} connection${CONNECTIONS[0] === 1 ? '' : 's'}, ${MODES[0]}`;
  process.stdout.write(
    `\nA fresh process's first ${COLD_WARMUP_SECONDS} s (the warm-up of its first case, ${firstCase}, not measured above): ` +
      `${[...warmups].map(([name, rate]) => `${name} ${rate}`).join('; ')}.\n`,
  );
  process.stdout.write(`\nThe bare proxy, measured at the start and the end of the run (its rows show the mean): ${proxyTwice.join('; ')}.\n`);
  process.stdout.write(
    '\ndirect: the fake upstream; bare proxy: node:http + undici, bytes passed through; svc: auth, hold, settle and usage row on a SQLite file;\n' +
      'svc pg: the same on PostgreSQL; svc pg ×2: two instances on one PostgreSQL database, the connections alternating between them.\n' +
      'Latency is to the end of the answer; ttfb to the first byte of its body; cpu/req is the CPU time of the answering processes per request;\n' +
      'db cpu/req, for svc on PostgreSQL, that of every PostgreSQL process (when PostgreSQL runs on this machine: on its two cores too).\n',
  );
  for (const [name, rows] of usageRows) {
    process.stdout.write(`${name} usage rows: ${rows} for ${served.get(name)} requests it answered 200 ${verdict(rows === served.get(name))}\n`);
  }
  for (const [name, report] of ledgers) {
    process.stdout.write(`${name} ledger after the load (svc serve --check): ${report.ok ? 'consistent' : report.problems.join('; ')} ${verdict(report.ok)}\n`);
  }
}
