import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { openConfig } from './config.js';
import { loadServer } from './lazy.js';

type Config = ReturnType<typeof openConfig>;

/**
 * Starts the server bundled with the CLI on this machine's SQLite database (`svc serve`, and
 * `svc chat` when no server answers). On an empty database the owner's keys are created; the
 * live key and URL are saved in the config when it has no key yet, so the CLI works at once.
 * The server logs to the command's stderr, or to `logFile` when given (the chat's screen is no place for it).
 */
export async function startBundledServer(
  config: Config,
  options: {
    host: string;
    port: number;
    db?: string;
    startingCredits: number;
    providersFile?: string;
    payments?: 'stripe' | 'sandbox' | 'off';
    logFile?: string;
    /** Where provider keys and settings are read: the command's environment, not the process's. */
    env: NodeJS.ProcessEnv;
    /** Where the server logs without a log file: the command's stderr. */
    stderr: NodeJS.WritableStream;
  },
) {
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const { startServer } = await loadServer();
  const serverLog = options.logFile ? appendingLog(options.logFile) : null;
  let running;
  try {
    running = await startServer({
      host: options.host,
      port: options.port,
      dbPath: options.db ?? join(config.home, 'server.db'),
      startingGrantCredits: options.startingCredits,
      ...(options.providersFile ? { providersFile: options.providersFile } : {}),
      ...(options.payments ? { payments: options.payments } : {}),
      env: options.env,
      log: serverLog ? serverLog.write : (line: string) => options.stderr.write(`${line}\n`),
    });
  } catch (error) {
    serverLog?.close();
    throw error;
  }
  const stop = running.close;
  const server = { ...running, close: () => stop().finally(() => serverLog?.close()) };
  let savedKey = false;
  if (server.bootstrap && !config.values.api_key) {
    // A port picked for this start only (`--port 0`) is no address to come back to.
    config.set({ api_key: server.bootstrap.liveKey, ...(options.port !== 0 ? { api_url: server.url } : {}) });
    savedKey = true;
  }
  return { server, savedKey, savedUrl: savedKey && options.port !== 0 };
}

/**
 * Appends lines, each stamped with the time, to the file at `path` (created readable by its owner
 * only). Written synchronously, so no line is lost when the process exits; a line that cannot
 * be written is dropped rather than failing the request that logged it.
 */
function appendingLog(path: string) {
  const fd = openSync(path, 'a', 0o600);
  return {
    write(line: string) {
      try {
        writeSync(fd, `${new Date().toISOString()} ${line}\n`);
      } catch {
        // A full disk must not take the server down with it.
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * What the first start says about the owner's key: where it is saved, and how to get a new one,
 * since no API call can show it again. `db` is the `--db` the operator must give, if any.
 */
export function ownerKeyNotice(started: { developerId: string; saved: boolean; configPath: string; db?: string | undefined }): string {
  const where = started.saved ? `The owner's admin key is saved in ${started.configPath}.` : `The owner's admin key was not saved (${started.configPath} already holds a key).`;
  const command = `svc admin keys create --developer ${started.developerId} --role admin${started.db ? ` --db ${started.db}` : ''}`;
  return `${where} Lost it? \`${command}\`, run where the database is, issues a new one.`;
}
