import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A process that listens on a TCP port. */
export interface PortHolder {
  pid: number;
  command: string;
}

/** The inodes of the sockets listening on `port` (Linux: /proc/net/tcp and tcp6; state 0A is LISTEN). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (!local || fields[3] !== '0A') continue;
      if (Number.parseInt(local.split(':')[1] ?? '', 16) === port && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
};

/** Linux: the process whose open files include one of those sockets (only our own user's are readable). */
function fromProc(port: number): PortHolder | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) return { pid: Number(entry), command: commandOf(Number(entry)) };
      } catch {
        // gone, or not ours to read
      }
    }
  }
  return null;
}

/** Elsewhere (macOS, BSD): lsof, when it is installed. */
function fromLsof(port: number): PortHolder | null {
  try {
    const out = execFileSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], { encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = /^p(\d+)$/m.exec(out)?.[1];
    return pid ? { pid: Number(pid), command: /^c(.+)$/m.exec(out)?.[1] ?? '' } : null;
  } catch {
    return null;
  }
}

/** Who listens on `port` on this machine, if that can be found out. */
export function portHolder(port: number): PortHolder | null {
  return process.platform === 'linux' ? fromProc(port) : fromLsof(port);
}

/**
 * Why a server could not listen, for people: a port in use names the process that holds it
 * (and says when it is svc's own background server) instead of a bare EADDRINUSE.
 */
export function describeListenError(error: unknown, port: number, backgroundPid: number | null): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EADDRINUSE') return (error as Error).message;
  const holder = portHolder(port);
  if (!holder) return `port ${port} is in use by another process; pick another with --port.`;
  const what = holder.command ? `${holder.pid} (${holder.command.length > 80 ? `${holder.command.slice(0, 79)}…` : holder.command})` : String(holder.pid);
  const hint = holder.pid === backgroundPid ? "it is svc's background server: `svc server stop` stops it" : 'stop it or pick another --port';
  return `port ${port} is in use by process ${what}; ${hint}.`;
}
