import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** npm runs scripts from the package root. */
export const REPO = resolve(process.cwd());
export const SVC_BIN = join(REPO, 'bin/svc.js');
/** The bundled benchmarks (dist/bench/index.js), which a child process runs again in a role. */
const BENCH_BUNDLE = fileURLToPath(import.meta.url);
/** Names the role a child process of a benchmark plays (index.ts runs it instead of the benchmarks). */
export const CHILD_ROLE_ENV = 'SVC_BENCH_CHILD';

export function tempHome(prefix = 'svc-bench-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs a command to its end; resolves with the wall time in milliseconds. */
export function timeRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolvePromise(elapsed);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** Starts `svc serve --port 0` and resolves once it prints its listening line. */
export function startSvcServer(home: string): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', '--db', join(home, 'server.db')], {
      env: { PATH: process.env.PATH, SVC_HOME: home },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /svc server listening on (\S+)/.exec(output);
      if (match) {
        resolvePromise({
          url: match[1] as string,
          child,
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`svc serve exited ${code} before listening:\n${output}`)));
  });
}

export interface BenchChild<Info> {
  /** What the child reported once ready. */
  info: Info;
  child: ChildProcess;
  /** Ends the child's stdin, which makes it close down and exit. */
  stop(): Promise<void>;
}

/**
 * Runs the benchmark bundle again as the child `role` (one of index.ts's roles), and resolves with
 * the JSON line it prints once ready (`reportReady`). Its stdin is the leash: when it ends, the
 * child closes down, so a child also stops when the benchmark dies.
 */
export function startChild<Info>(
  role: string,
  options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<BenchChild<Info>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BENCH_BUNDLE], {
      env: { ...process.env, ...options.env, [CHILD_ROLE_ENV]: role },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    const early = (code: number | null) => reject(new Error(`bench child ${role} exited ${code} before it was ready:\n${output}`));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const newline = output.indexOf('\n');
      if (newline < 0) return;
      child.off('exit', early);
      child.stdout.off('data', onData);
      child.stdout.resume();
      const stop = () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(kill);
            done();
          });
          child.stdin.end();
        });
      resolvePromise({ info: JSON.parse(output.slice(0, newline)) as Info, child, stop });
    };
    child.stdout.on('data', onData);
    child.once('exit', early);
  });
}

/** In a child: tells the parent it is ready (one JSON line), and runs `close` then exits once the parent lets go. */
export function reportReady(info: unknown, close: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.stdin.once('end', () => void close().finally(() => process.exit(0)));
  process.stdin.resume();
}

/**
 * A process's /proc stat: its command name, and the fields after it (the name may hold spaces);
 * utime, stime, cutime and cstime are `fields[11]` to `fields[14]`, in ticks of 1/100 s. Throws
 * where /proc cannot tell (not Linux, or the process is gone).
 */
function procStat(pid: number | string | undefined): { command: string; fields: string[] } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = stat.lastIndexOf(') ');
  return { command: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** CPU time a process has used so far (user + system), in seconds; NaN where /proc cannot tell (not Linux). */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const { fields } = procStat(pid);
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time every PostgreSQL process on this machine has used so far (user + system, with that of
 * the backends that have ended, which their postmaster counts as its children's), in seconds; NaN
 * where /proc cannot tell or no PostgreSQL runs here.
 */
export function postgresCpuSeconds(): number {
  let ticks = 0;
  let found = false;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: ReturnType<typeof procStat>;
      try {
        stat = procStat(entry);
      } catch {
        continue; // ended meanwhile
      }
      if (stat.command !== 'postgres') continue;
      const { fields } = stat;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      found = true;
    }
  } catch {
    return Number.NaN;
  }
  return found ? ticks / 100 : Number.NaN;
}

/** Resident memory of a process (VmRSS), in bytes; NaN where /proc cannot tell (not Linux). */
export function rssBytes(pid: number | undefined): number {
  try {
    const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kilobytes === undefined ? Number.NaN : Number(kilobytes) * 1024;
  } catch {
    return Number.NaN;
  }
}
