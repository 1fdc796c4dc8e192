import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { formatMs, median, percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { startSvcServer, SVC_BIN, tempHome, timeRun } from './lib/processes.js';

const RUNS = 15;
const WARMUP = 2;
const TARGET_MS = 500;
const PROMPT = 'Ask anything';
/** The status line's balance: drawn once the chat has started up and takes keys. */
const STARTED = 'balance';
const GIVE_UP_MS = 15_000;

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `script -qfc` runs a shell command on a pseudo-terminal of 100×30 (util-linux script). */
const onTerminal = (command: string[]) => ['-qfc', `stty cols 100 rows 30; exec ${command.map(quote).join(' ')}`, '/dev/null'];

/**
 * Runs `command` on a pseudo-terminal and resolves with the milliseconds from the spawn until
 * `text` is on the screen; once `ready` is on it too, leaves with Ctrl+D and waits for the exit.
 * (A key sent with the very first frame can come before the terminal is in raw mode, and be lost.)
 */
function timeToScreen(command: string[], env: NodeJS.ProcessEnv, text: string, ready: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('script', onTerminal(command), { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    let elapsed: number | null = null;
    const giveUp = setTimeout(() => child.kill('SIGKILL'), GIVE_UP_MS);
    let left = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (left) return;
      output += chunk.toString();
      const screen = stripVTControlCharacters(output);
      if (elapsed === null && screen.includes(text)) elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (elapsed === null || !screen.includes(ready)) return;
      left = true;
      child.stdin.write('\u0004');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(giveUp);
      if (elapsed !== null && code === 0) resolve(elapsed);
      else reject(new Error(`${command.join(' ')} ended (${code ?? signal}) ${elapsed === null ? `before showing ${JSON.stringify(text)}` : 'with an error'}:\n${output}`));
    });
  });
}

/**
 * Start of `svc chat` (issue: the chat, performance): wall time from spawning it on a terminal,
 * against a running local server, until its prompt is drawn. Target: ≤ 500 ms. Bare `node -e 0`
 * on the same kind of terminal, spawn to exit, for comparison.
 */
export async function chatStart(): Promise<void> {
  if (spawnSync('script', ['--version']).status !== 0) {
    process.stdout.write('\nchat-start: skipped, `script` (util-linux) is not installed.\n');
    return;
  }
  const home = tempHome('svc-bench-chat-');
  const server = await startSvcServer(home);
  const env = { PATH: process.env.PATH, HOME: home, SVC_HOME: home, TERM: 'xterm-256color' };
  const chat = [process.execPath, SVC_BIN, 'chat', '--api-url', server.url];
  const cases: [string, () => Promise<number>][] = [
    ['node -e 0 (spawn to exit)', () => timeRun('script', onTerminal([process.execPath, '-e', '0']), env)],
    ['svc chat (spawn to prompt)', () => timeToScreen(chat, env, PROMPT, STARTED)],
  ];
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Interleaved, so a noisy moment on the machine hits both alike.
      for (const [name, run] of cases) {
        const ms = await run();
        if (i >= WARMUP) samples.get(name)?.push(ms);
      }
    }
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
  printTable(
    `svc chat start (${RUNS} runs each after ${WARMUP} warm-ups, on a pseudo-terminal; target: prompt drawn ≤ ${TARGET_MS} ms)`,
    ['command', 'median', 'p90', 'target'],
    cases.map(([name]) => {
      const values = samples.get(name) ?? [];
      const target = name.startsWith('svc') ? (median(values) <= TARGET_MS ? `≤ ${TARGET_MS} ms: met` : `≤ ${TARGET_MS} ms: missed`) : '—';
      return [name, formatMs(median(values)), formatMs(percentile(values, 90)), target];
    }),
  );
}
