import { closeSync, openSync, readFileSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { answers, isAlive, pidFilePath, readPidFile, removePidFile, serverLogPath } from '../background-server.js';
import { SvcCommand } from '../base-command.js';
import { svcHome } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { stopSignals } from '../stop-signals.js';

/** What the three share: the home whose background server they look after, and no --api-url. */
abstract class ServerCommand extends SvcCommand {
  override apiUrl = undefined;

  protected get home(): string {
    return svcHome(this.context.env);
  }

  /** The background server's pid file, when it names a process that still runs. */
  protected running() {
    const entry = readPidFile(this.home);
    if (entry && !isAlive(entry.pid)) {
      // A server killed outright (kill -9, a reboot) leaves its file behind.
      removePidFile(this.home, entry.pid);
      return null;
    }
    return entry;
  }
}

export class ServerStatusCommand extends ServerCommand {
  static override paths = [['server', 'status']];
  static override usage = Command.Usage({
    category: 'Server',
    description: 'Whether the background server runs: its pid, URL and log (exit 3 when not)',
    details: '`svc chat` starts the bundled server in the background when no server answers; it keeps running for every `svc` on this machine.',
  });

  async execute(): Promise<number> {
    const entry = this.running();
    if (!entry) {
      this.context.stdout.write(`No background server is running (no live pid in ${pidFilePath(this.home)}).\n`);
      return ExitCode.unreachable;
    }
    const healthy = await answers(entry.url);
    this.context.stdout.write(
      [
        `The background server runs: pid ${entry.pid}, ${entry.url}${healthy ? '' : ' (not answering its health check)'}.`,
        `  since ${entry.started_at}`,
        `  log   ${entry.log}`,
        '',
      ].join('\n'),
    );
    return healthy ? ExitCode.ok : ExitCode.unreachable;
  }
}

/** How long a stop waits for requests in flight before it says so. */
const STOP_TIMEOUT_MS = 20_000;

export class ServerStopCommand extends ServerCommand {
  static override paths = [['server', 'stop']];
  static override usage = Command.Usage({
    category: 'Server',
    description: 'Stop the background server (it finishes the requests in flight first)',
  });

  async execute(): Promise<number> {
    const entry = this.running();
    if (!entry) {
      this.context.stdout.write('No background server is running.\n');
      return ExitCode.ok;
    }
    process.kill(entry.pid, 'SIGTERM');
    // The server ends on its own once its requests are done; watch it go (nothing else to wait on: it is not our child).
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (isAlive(entry.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (isAlive(entry.pid)) {
      this.context.stderr.write(`svc: the server (pid ${entry.pid}) is still finishing requests after ${STOP_TIMEOUT_MS / 1000} s; see ${entry.log}.\n`);
      return ExitCode.apiError;
    }
    removePidFile(this.home, entry.pid);
    this.context.stdout.write(`Stopped the background server (pid ${entry.pid}).\n`);
    return ExitCode.ok;
  }
}

export class ServerLogsCommand extends ServerCommand {
  static override paths = [['server', 'logs']];
  static override usage = Command.Usage({
    category: 'Server',
    description: "Print the end of the background server's log",
    examples: [
      ['The last 50 lines', 'svc server logs'],
      ['The last 200', 'svc server logs --lines 200'],
      ['Follow it as it grows', 'svc server logs -f'],
    ],
  });
  static placeholders = { '--lines': 'number' };

  lines = Option.String('-n,--lines', '50', {
    description: 'How many lines, from the end (default 50)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  });

  follow = Option.Boolean('-f,--follow', false, { description: 'Then keep printing what the server logs, until Ctrl+C' });

  async execute(): Promise<number> {
    const { stdout, stderr } = this.context;
    const log = readPidFile(this.home)?.log ?? serverLogPath(this.home);
    // Watched before it is read: a line logged in between is printed, not lost.
    let position = 0;
    const watcher = this.follow ? watch(dirname(log), (_event, name) => (name === null || name === basename(log) ? (position = printFrom(log, position, stdout)) : undefined)) : null;
    const text = readOrEmpty(log);
    position = text.length;
    const lines = text.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines.length === 0 && !this.follow) stderr.write(`svc: no server log at ${log} yet.\n`);
    if (lines.length > 0) stdout.write(`${lines.slice(-this.lines).join('\n')}\n`);
    if (watcher) {
      const stop = stopSignals();
      await stop.requested;
      stop.dispose();
      watcher.close();
    }
    return ExitCode.ok;
  }
}

function readOrEmpty(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * Prints what `path` holds past `position`, as `tail -f` does, and returns the new position; a
 * file rewritten shorter (a new log) is printed from its start.
 */
function printFrom(path: string, position: number, out: NodeJS.WritableStream): number {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return position;
  }
  const from = size < position ? 0 : position;
  if (size === from) return from;
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(size - from);
    readSync(fd, chunk, 0, chunk.length, from);
    out.write(chunk);
  } finally {
    closeSync(fd);
  }
  return size;
}
