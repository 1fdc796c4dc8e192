import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, explain, freePort, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';

/**
 * The bundled server outlives the chat: `svc chat` starts it as a background process of its own
 * (pid and log in the home), shared by every svc, looked after with `svc server status|stop|logs`;
 * several chats at once on one home never lock each other out or lose a line.
 */

const home = tempDir();
let url = '';
afterAll(async () => {
  await runSvc(['server', 'stop'], { home });
  removeTempDirs();
});

/** A question whose echo is long: the answer must arrive, and be remembered, whole. */
const question = (name: string) => Array.from({ length: 120 }, (_, i) => `${name} line ${i + 1}`).join('\n');

describe('three chats at once on a fresh home', () => {
  it('all answer in full, start one background server between them, and remember every line', async () => {
    url = `http://127.0.0.1:${await freePort()}`;
    const names = ['alpha', 'bravo', 'charlie'];
    const results = await Promise.all(
      names.map((name) => runSvc(['chat', '--model', 'local/echo', '--no-tools'], { home, env: { SVC_API_URL: url }, input: question(name), timeoutMs: 60_000 })),
    );
    for (const [i, result] of results.entries()) {
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout).toContain(`${names[i]} line 120`);
      expect(result.stderr).not.toMatch(/locked|SQLITE_BUSY/i);
    }
    // Each chat's question and answer are in the shared memory, whole.
    const db = new Database(join(home, 'memory.db'), { readonly: true });
    try {
      const messages = db.prepare('SELECT role, content FROM messages ORDER BY id').all() as Array<{ role: string; content: string }>;
      for (const name of names) {
        expect(messages.filter((m) => m.role === 'user' && m.content === question(name))).toHaveLength(1);
        expect(messages.filter((m) => m.role === 'assistant' && m.content.includes(question(name)))).toHaveLength(1);
      }
    } finally {
      db.close();
    }
  }, 90_000);

  it('the server outlives the chats: `svc server status` shows it, `svc api` uses it', async () => {
    const status = await runSvc(['server', 'status'], { home });
    expect(status.code, explain(status)).toBe(0);
    const pid = JSON.parse(readFileSync(join(home, 'server.pid'), 'utf8')).pid as number;
    expect(status.stdout).toContain(`The background server runs: pid ${pid}, ${url}.`);
    expect(status.stdout).toContain(`log   ${join(home, 'server.log')}`);
    const health = await runSvc(['api', '/health'], { home });
    expect(health.json()).toMatchObject({ status: 'ok' });
  });

  it('`svc serve` on its port names the process holding it', async () => {
    const pid = JSON.parse(readFileSync(join(home, 'server.pid'), 'utf8')).pid as number;
    const clash = await runSvc(['serve', '--port', new URL(url).port], { home });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(new RegExp(`^svc: cannot start the server: port ${new URL(url).port} is in use by process ${pid} \\(.*svc\\.js serve.*\\); it is svc's background server: \`svc server stop\` stops it\\.\\n$`));
  });

  it('`svc server logs` prints the end of its log', async () => {
    const logs = await runSvc(['server', 'logs', '-n', '3'], { home });
    expect(logs.code, explain(logs)).toBe(0);
    expect(logs.stdout.split('\n').filter(Boolean).length).toBeLessThanOrEqual(3);
    expect(logs.stdout).toBe(`${readFileSync(join(home, 'server.log'), 'utf8').trimEnd().split('\n').slice(-3).join('\n')}\n`);
  });

  it('`svc server stop` stops it and removes its pid file; then status says so (exit 3)', async () => {
    const stop = await runSvc(['server', 'stop'], { home });
    expect(stop.code, explain(stop)).toBe(0);
    expect(stop.stdout).toMatch(/^Stopped the background server \(pid \d+\)\.\n$/);
    expect(existsSync(join(home, 'server.pid'))).toBe(false);
    const status = await runSvc(['server', 'status'], { home });
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(/^No background server is running/);
    const again = await runSvc(['server', 'stop'], { home });
    expect(again.stdout).toBe('No background server is running.\n');
  });
});

it('`svc server logs -f` prints the end, then each line as it is logged, until SIGTERM', async () => {
  const logHome = tempDir();
  const log = join(logHome, 'server.log');
  writeFileSync(log, 'one\ntwo\nthree\n');
  const child = spawn(process.execPath, [BIN, 'server', 'logs', '-f', '-n', '2'], { cwd: logHome, env: childEnv(logHome), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    while (!out.includes('three\n')) await once(child.stdout, 'data');
    expect(out).toBe('two\nthree\n');
    appendFileSync(log, 'four\n');
    while (!out.includes('four\n')) await once(child.stdout, 'data');
    expect(out).toBe('two\nthree\nfour\n');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});

it('a port held by another program names it too', async () => {
  const { createServer } = await import('node:net');
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as { port: number }).port;
    const clash = await runSvc(['serve', '--port', String(port)], { home: tempDir() });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(new RegExp(`^svc: cannot start the server: port ${port} is in use by process ${process.pid} \\(.*\\); stop it or pick another --port\\.\\n$`));
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
