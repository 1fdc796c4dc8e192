import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { BIN, childEnv } from './cli.js';

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * Runs `svc <args…>` with a terminal for stdin, stdout and stderr (util-linux `script` gives it a
 * pty), for what svc prints only to people: one line per error, indented JSON. The terminal
 * joins both streams and ends lines with CRLF; `output` has them as LF.
 */
export function runSvcOnTerminal(args: readonly string[], options: { home: string; env?: Record<string, string | undefined> }): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: tmpdir(), env: { ...childEnv(options.home, options.env), TERM: 'dumb' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: svc ${args.join(' ')}\n${output}`));
    }, 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.replaceAll('\r\n', '\n') });
    });
  });
}
