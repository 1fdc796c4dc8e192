import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** npm runs scripts from the package root. */
export const REPO = resolve(process.cwd());
export const SVC_BIN = join(REPO, 'bin/svc.js');

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
