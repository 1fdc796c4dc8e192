import { Pool } from 'undici';
import { cpuSeconds } from './processes.js';

/** One HTTP request, sent again and again. */
export interface LoadRequest {
  /** POST unless said. */
  method?: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** e.g. `http://127.0.0.1:8787`: loopback only. Several: the connections take turns among them (a round-robin balancer). */
  origin: string | string[];
  request: LoadRequest;
  /** Keep-alive connections, each with one request at a time in flight. */
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Requests measured at the most (the run also ends after `durationMs`). */
  maxRequests?: number;
  /** Processes whose CPU time over the measured window is reported (the servers under load). */
  pids?: (number | undefined)[];
  /** CPU seconds used so far by what the servers share (their database's processes), reported over the measured window too. */
  sharedCpu?: () => number;
}

export interface LoadResult {
  /** Answers 200 with a body, in the measured window. */
  ok: number;
  /** Other answers and transport errors, in the measured window. */
  failures: number;
  /** Length of the measured window. */
  seconds: number;
  /** Milliseconds from sending a request to the end of its answer, per `ok` answer. */
  latencies: number[];
  /** Milliseconds from sending a request to the first byte of its answer's body, per `ok` answer. */
  firstBytes: number[];
  /** Answers 200, warm-up included (what the target served). */
  served: number;
  /** Answers 200 in the warm-up alone (a fresh process's first seconds: how fast it gets up to speed). */
  warmupOk: number;
  /** CPU seconds each of `pids` used in the measured window (NaN where unknown). */
  cpu: number[];
  /** CPU seconds `sharedCpu` counted in the measured window (NaN where none was given, or it cannot tell). */
  sharedCpu: number;
}

/**
 * A closed-loop load: `connections` workers each send the request, read the whole answer, and
 * send again, first for `warmupMs` (not measured), then for `durationMs`.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const origins = typeof options.origin === 'string' ? [options.origin] : options.origin;
  for (const origin of origins) {
    if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/.test(origin)) throw new Error(`load only goes to loopback addresses, not ${origin}`);
  }
  const maxRequests = options.maxRequests ?? 1_000_000;
  const pools = origins.map((origin) => new Pool(origin, { connections: Math.ceil(options.connections / origins.length), keepAliveTimeout: 30_000 }));
  const { method = 'POST', path, headers, body } = options.request;
  const result: LoadResult = { ok: 0, failures: 0, seconds: 0, latencies: [], firstBytes: [], served: 0, warmupOk: 0, cpu: [], sharedCpu: Number.NaN };

  async function phase(ms: number, measured: boolean): Promise<void> {
    const end = performance.now() + ms;
    const worker = async (_: unknown, index: number) => {
      const pool = pools[index % pools.length] as Pool;
      while (performance.now() < end && (!measured || result.ok + result.failures < maxRequests)) {
        const started = performance.now();
        let firstByte = 0;
        let bytes = 0;
        let status = 0;
        try {
          const answer = await pool.request({ path, method, headers, body: body ?? null });
          status = answer.statusCode;
          for await (const chunk of answer.body) {
            if (firstByte === 0) firstByte = performance.now();
            bytes += (chunk as Buffer).length;
          }
        } catch {
          status = 0;
        }
        const done = performance.now();
        const ok = status === 200 && bytes > 0;
        if (ok) result.served++;
        if (!measured) continue;
        if (!ok) {
          result.failures++;
          continue;
        }
        result.ok++;
        result.latencies.push(done - started);
        result.firstBytes.push(firstByte - started);
      }
    };
    await Promise.all(Array.from({ length: options.connections }, worker));
  }

  try {
    await phase(options.warmupMs, false);
    result.warmupOk = result.served;
    const pids = options.pids ?? [];
    const cpuBefore = pids.map(cpuSeconds);
    const sharedBefore = options.sharedCpu?.() ?? Number.NaN;
    const started = performance.now();
    await phase(options.durationMs, true);
    result.seconds = (performance.now() - started) / 1000;
    result.cpu = pids.map((pid, i) => cpuSeconds(pid) - (cpuBefore[i] as number));
    result.sharedCpu = (options.sharedCpu?.() ?? Number.NaN) - sharedBefore;
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return result;
}
