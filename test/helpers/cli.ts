import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { runCommandLine } from '../../src/cli/main.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * Helpers for CLI tests. `runSvc` runs a command line in-process through the CLI's own entry
 * (`runCommandLine`, as the binary does) with in-memory streams, an environment of its own and a
 * throwaway `SVC_HOME`, never the user's ~/.svc nor this process's environment. With
 * `spawn: true` (and `startServe`, `runSvcIntoClosedPipe`) it runs the real `bin/svc.js` — the
 * esbuild bundle in dist/cli — as a child process: for what needs one (the bundle, pipes,
 * signals, exit codes as the shell sees them).
 */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'svc.js');
export const DIST_CLI = join(ROOT, 'dist', 'cli');
export const DIST_MAIN = join(DIST_CLI, 'main.js');

/** Throws a clear error when the CLI bundle has not been built (`npm test` builds it first). */
export function assertBuilt(): void {
  if (!existsSync(DIST_MAIN)) {
    throw new Error(
      `The CLI bundle ${DIST_MAIN} is missing: run \`npm run build\` before the CLI tests (\`npm test\` builds first).`,
    );
  }
}
assertBuilt();

const tempDirs: string[] = [];

/** A fresh, empty directory under the OS temp dir (use as `SVC_HOME`, or for a database file). */
export function tempDir(prefix = 'svc-cli-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory `tempDir()` made; call from `afterAll`. */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface RunOptions {
  /** `SVC_HOME` for the child (also used as its `HOME`, so nothing can reach the real ~/.svc). */
  home: string;
  /** Extra environment. Only PATH, HOME and SVC_HOME are passed otherwise: the parent's SVC_* never leak in. */
  env?: Record<string, string | undefined>;
  /** Text for the child's stdin (stdin is closed either way). */
  input?: string;
  timeoutMs?: number;
  /** Run the built binary as a child process instead of in-process. */
  spawn?: boolean;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as exactly one line of compact JSON (what a pipe gets), parsed. */
  json(): any;
  /** stderr as exactly one line of compact JSON, parsed. */
  errorJson(): any;
}

/** The environment a child gets: nothing from the parent but PATH. */
export function childEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SVC_HOME: home };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

function describeRun(args: readonly string[], stdout: string, stderr: string): string {
  return `svc ${args.join(' ')}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
}

/** Parses `text` as exactly one line of compact JSON, failing with the whole output otherwise. */
export function parseJsonLine(text: string, what: string): any {
  if (!text.endsWith('\n') || text.indexOf('\n') !== text.length - 1) {
    throw new Error(`expected ${what} to be exactly one line, got:\n${text}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`expected ${what} to be JSON, got:\n${text}`);
  }
  if (`${JSON.stringify(value)}\n` !== text) throw new Error(`expected ${what} to be compact JSON, got:\n${text}`);
  return value;
}

function runResult(args: readonly string[], code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): RunResult {
  return {
    code,
    signal,
    stdout,
    stderr,
    json: () => parseJsonLine(stdout, `the stdout of ${describeRun(args, stdout, stderr)}\n`),
    errorJson: () => parseJsonLine(stderr, `the stderr of ${describeRun(args, stdout, stderr)}\n`),
  };
}

/** Runs `svc <args…>` to completion. Never rejects on a non-zero exit: tests assert `code`. */
export function runSvc(args: readonly string[], options: RunOptions): Promise<RunResult> {
  return options.spawn ? spawnSvc(args, options) : runSvcInProcess(args, options);
}

/** A stream that keeps what is written to it, as a pipe's reader would (no TTY). */
class CapturedOutput extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * `svc <args…>` in this process: stdin holds `input` and ends, stdout and stderr are captured,
 * the command sees only `childEnv` and a temporary working directory. What would escape a
 * process as an uncaught error is printed to stderr with exit code 1, as Node does.
 */
async function runSvcInProcess(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const { home, env, input, timeoutMs = 15_000 } = options;
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const context = { stdin: Readable.from(input ? [input] : []), stdout, stderr, env: childEnv(home, env), cwd: tmpdir(), colorDepth: 1 };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms: ${describeRun(args, stdout.text, stderr.text)}`)), timeoutMs);
  });
  let code: number;
  try {
    code = await Promise.race([runCommandLine([...args], context), timeout]);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('timed out after')) throw error;
    stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    code = 1;
  } finally {
    clearTimeout(timer);
  }
  return runResult(args, code, null, stdout.text, stderr.text);
}

/** `svc <args…>` as a child process of the built binary. */
function spawnSvc(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const { home, env, input, timeoutMs = 15_000 } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: tmpdir(),
      env: childEnv(home, env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {}); // the child may exit before reading stdin
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms: ${describeRun(args, stdout, stderr)}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(runResult(args, code, signal, stdout, stderr));
    });
  });
}

export { freePort } from './ports.js';

/** A readable failure message for `expect(result.code, explain(result)).toBe(…)`. */
export function explain(result: RunResult): string {
  return `exit ${result.code}${result.signal ? ` (${result.signal})` : ''}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The operations the CLI was built with (`dist/cli/api-manifest.json`). */
export function loadBuiltManifest(): Array<{ id: string; cli: string[]; [key: string]: unknown }> {
  return JSON.parse(readFileSync(join(DIST_CLI, 'api-manifest.json'), 'utf8'));
}

/** `$SVC_HOME/config.json`, parsed, or `undefined` when there is none. */
export function readConfig(home: string): Record<string, unknown> | undefined {
  const path = join(home, 'config.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** The URL from the `svc server listening on …` line. */
  url: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM (or `signal`) and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /^svc server listening on (http:\/\/\S+:\d+)$/m;

/**
 * Spawns `svc serve <args…>` and resolves once it prints its listening line; rejects (and kills
 * the child) if it exits first or does not get there within `timeoutMs`.
 */
export function startServe(args: readonly string[], options: RunOptions): Promise<ServeProcess> {
  const { home, env, timeoutMs = 15_000 } = options;
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: tmpdir(),
    env: childEnv(home, env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', stopTimeoutMs = 15_000) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`svc serve did not exit within ${stopTimeoutMs} ms of ${signal}\n${stdout}\n${stderr}`));
      }, stopTimeoutMs);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`svc serve ${args.join(' ')} did not print its listening line within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const onData = () => {
      const match = LISTENING.exec(stdout);
      if (!match) return;
      cleanup();
      resolve({ child, url: match[1] as string, stdout: () => stdout, stderr: () => stderr, stop });
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`svc serve ${args.join(' ')} exited (${code ?? signal}) before listening\n${stdout}\n${stderr}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    // Registered after the accumulating listener, so `stdout` already holds the chunk.
    child.stdout.on('data', onData);
    child.on('exit', onExit);
  });
}

/**
 * For a test file that runs `svc api …`: a real test server for the whole file, a throwaway
 * `SVC_HOME`, and `run(args, env)` aimed at that server with its live key.
 */
export function useApiCli() {
  const home = tempDir();
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startTestServer();
  });
  afterAll(async () => {
    await running?.close();
    removeTempDirs();
  });
  const server = (): TestServer => {
    if (!running) throw new Error('the test server starts in beforeAll');
    return running;
  };
  return {
    home,
    get server() {
      return server();
    },
    run(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
      return runSvc(['api', ...args, '--api-url', server().url], { home, env: { SVC_API_KEY: server().liveKey, ...env } });
    },
  };
}

/**
 * Runs `svc <args…> | head -c 1`: the reader goes away after the first chunk of stdout, as `head`
 * does, and the command goes on writing into a closed pipe.
 */
export function runSvcIntoClosedPipe(args: readonly string[], options: RunOptions): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; read: number }> {
  const { home, env, input } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: tmpdir(), env: childEnv(home, env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let read = 0;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.stdout.destroy();
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: svc ${args.join(' ')}; stderr: ${stderr}`));
    }, 15_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, read });
    });
  });
}
