import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../client/client.js';

/**
 * The bundled server as a background process of its own: `svc chat` starts it when no server
 * answers on this machine, and it outlives the chat, shared by every `svc` (and every terminal)
 * on the same home. Its pid and URL are in `~/.svc/server.pid`, its log in `~/.svc/server.log`;
 * `svc server status|stop|logs` look after it.
 */

/** What the background server writes when it listens (and removes when it stops). */
export interface PidFile {
  pid: number;
  url: string;
  log: string;
  started_at: string;
}

/** What the background server tells the CLI that started it, once, over the IPC channel. */
export interface ReadyMessage {
  type: 'svc-server-ready';
  url: string;
  pid: number;
  /** The owner account, when this start created it. */
  developerId: string | null;
  savedKey: boolean;
}

/** The environment variable that tells `svc serve` it runs in the background (set by `startBackgroundServer`). */
export const BACKGROUND_ENV = 'SVC_SERVE_BACKGROUND';

export const pidFilePath = (home: string) => join(home, 'server.pid');
export const serverLogPath = (home: string) => join(home, 'server.log');

export function readPidFile(home: string): PidFile | null {
  try {
    const json = JSON.parse(readFileSync(pidFilePath(home), 'utf8')) as Partial<PidFile>;
    return typeof json.pid === 'number' && typeof json.url === 'string' ? (json as PidFile) : null;
  } catch {
    return null;
  }
}

export function writePidFile(home: string, entry: PidFile): void {
  writeFileSync(pidFilePath(home), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

/** Removes the pid file if it still names `pid` (a newer server's file is left alone). */
export function removePidFile(home: string, pid: number): void {
  if (readPidFile(home)?.pid === pid) rmSync(pidFilePath(home), { force: true });
}

/** Whether a process with this pid exists (signal 0 tests without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether an svc server answers its health check at `url` within a second. */
export async function answers(url: string): Promise<boolean> {
  try {
    await createClient({ baseUrl: url }).call({ method: 'GET', path: '/health', absolutePath: true }, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

/** The last `count` lines of a file ('' when there is none). */
export function lastLines(path: string, count: number): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return '';
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-count).join('\n');
}

/** How long a first start may take (migrations on a new database included). */
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts `svc serve` in the background on `host:port` and resolves once it listens. The child
 * is detached (its own process group: Ctrl+C in the chat does not reach it) and writes to the
 * log; it reports readiness over IPC, then the channel is dropped so nothing ties it to us.
 * When another `svc` won the race for the port, that server is used instead.
 */
export async function startBackgroundServer(
  home: string,
  options: { host: string; port: number; env: NodeJS.ProcessEnv },
): Promise<{ url: string; pid: number; log: string; developerId: string | null; savedKey: boolean }> {
  const log = serverLogPath(home);
  const fd = openSync(log, 'a', 0o600);
  const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'serve', '--host', options.host, '--port', String(options.port)], {
    detached: true,
    stdio: ['ignore', fd, fd, 'ipc'],
    env: { ...options.env, [BACKGROUND_ENV]: '1' },
  });
  closeSync(fd);
  const url = `http://${options.host}:${options.port}`;
  try {
    const ready = await new Promise<ReadyMessage | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start within ${READY_TIMEOUT_MS / 1000} s; see ${log}`)), READY_TIMEOUT_MS);
      child.on('message', (message: ReadyMessage) => {
        if (message?.type !== 'svc-server-ready') return;
        clearTimeout(timer);
        resolve(message);
      });
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(null);
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    if (ready) return { url: ready.url, pid: ready.pid, log, developerId: ready.developerId, savedKey: ready.savedKey };
    // It exited. When it lost a race (another svc started one on this port, or holds the database
    // while migrating it, a moment before), that one is used once it answers.
    const tail = lastLines(log, 5).replace(/^svc: /gm, '');
    const lostRace = /in use|locked|SQLITE_BUSY/.test(tail);
    for (const deadline = Date.now() + (lostRace ? READY_TIMEOUT_MS : 0); ; ) {
      if (await answers(url)) return { url, pid: readPidFile(home)?.pid ?? 0, log, developerId: null, savedKey: false };
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(tail.length > 0 ? tail : `it exited; see ${log}`);
  } finally {
    if (child.connected) child.disconnect();
    child.unref();
  }
}
