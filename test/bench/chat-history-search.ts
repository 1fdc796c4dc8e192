import { performance } from 'node:perf_hooks';
import { chatOnScreen } from './lib/chat-screen.js';
import { formatMs, median } from './lib/stats.js';
import { printTable } from './lib/table.js';

const ENTRIES = 10_000;
const MAX_ENTRY = 100_000;
const RUNS = 20;
const TARGET_MS = 50;
const KEY = { ctrlR: '\u0012', esc: '\u001b', enter: '\r', ctrlC: '\u0003' };

/** A seeded generator, so every run searches the same history. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 0x7fffffff) / 0x7fffffff;
}

/** An input of `size` characters: a question around a pasted log of numbered lines. */
function entry(n: number, size: number): string {
  const question = `question ${n}: why does this fail?`;
  if (size <= question.length) return question.slice(0, Math.max(1, size));
  const line = `${n} 2026-03-01T12:00:00Z worker ${n % 7} step ok value ${n * 31}\n`;
  // Joined, not concatenated: one flat string, as JSON.parse gives the history file's entries.
  return [question, line.repeat(Math.ceil(size / line.length)).slice(0, size - question.length - 1)].join('\n');
}

/** Sizes from 10 B to 100 KB, as many of each order of magnitude (a paste now and then is large). */
const logUniform = (random: () => number) => Math.round(10 * (MAX_ENTRY / 10) ** random());

/**
 * Opening Ctrl+R in `svc chat` over a long input history (issue 26: Ctrl+R froze the chat for
 * good on an 85 KB entry): the chat, drawn by Ink as in production into a headless terminal, its
 * history 10,000 entries of up to 100 KB. Times from the key to the frame that shows the list;
 * also a filter that matches nothing (it reads the start and end of every entry) and picking a
 * 100 KB entry. Target for opening: ≤ 50 ms (of this process's CPU: on a quiet machine that is
 * the time a person waits).
 */
export async function chatHistorySearch(): Promise<void> {
  // svc ships React's production build (scripts/build.mjs); the bench bundle loads the one
  // NODE_ENV names when it starts (the development build is several times slower).
  const react = process.env.NODE_ENV === 'production' ? 'production' : 'development';
  const { startTestServer } = await import('../helpers/server.js');
  const random = lcg(20_260_301);
  const histories: [string, () => string[]][] = [
    ['10 B – 100 KB each (log-uniform)', () => Array.from({ length: ENTRIES }, (_, i) => entry(i, logUniform(random)))],
    ['100 KB each', () => Array.from({ length: ENTRIES }, (_, i) => entry(i, MAX_ENTRY))],
  ];
  const server = await startTestServer();
  const rows: string[][] = [];
  try {
    for (const [shape, make] of histories) {
      const entries = make();
      const megabytes = entries.reduce((sum, text) => sum + text.length, 0) / 1e6;
      const { stdin, onWrite, unmount, terminal } = await chatOnScreen({
        server,
        columns: 100,
        rows: 30,
        settings: { model: 'local/echo' },
        history: { entries: () => entries, add: () => {} },
      });
      /** Resolves at the first write after now that shows `text`: the frame a person would see. */
      let waiting: { text: string; resolve: () => void } | null = null;
      onWrite((text) => {
        if (waiting && text.includes(waiting.text)) {
          waiting.resolve();
          waiting = null;
        }
      });
      /**
       * Presses `key` once Ink is idle (it draws at most every 33 ms) and times it until `shown` is
       * drawn: the time that passed, and the CPU time this process used meanwhile (what other
       * processes on a busy machine do not inflate).
       */
      const timed = async (key: string, shown: string): Promise<{ wall: number; cpu: number }> => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        const drawn = new Promise<void>((resolve) => (waiting = { text: shown, resolve }));
        const cpu = process.cpuUsage();
        const started = performance.now();
        stdin.write(key);
        await drawn;
        const used = process.cpuUsage(cpu);
        return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
      };
      await new Promise((resolve) => setTimeout(resolve, 300));
      const open: { wall: number; cpu: number }[] = [];
      const filter: { wall: number; cpu: number }[] = [];
      for (let run = 0; run < RUNS; run++) {
        open.push(await timed(KEY.ctrlR, 'History · type to filter'));
        filter.push(await timed(`no such text ${run}`, 'Nothing matches.'));
        await timed(KEY.esc, 'Ask anything');
      }
      // The newest entry is 100 KB in both histories' worst case: pick one that is.
      const large = entries.findLastIndex((text) => text.length >= MAX_ENTRY * 0.9);
      await timed(KEY.ctrlR, 'History · type to filter');
      await timed(`question ${large}:`, `question ${large}:`);
      const pick = await timed(KEY.enter, '[Pasted text #1:');
      unmount();
      terminal.dispose();
      const wall = open.map((o) => o.wall);
      rows.push([
        shape,
        `${megabytes.toFixed(0)} MB`,
        formatMs(median(wall)),
        formatMs(Math.max(...wall)),
        formatMs(median(open.map((o) => o.cpu))),
        median(open.map((o) => o.cpu)) <= TARGET_MS ? 'yes' : 'NO',
        formatMs(median(filter.map((f) => f.wall))),
        formatMs(pick.wall),
      ]);
    }
  } finally {
    await server.close();
  }
  printTable(
    `svc chat: Ctrl+R over ${ENTRIES.toLocaleString('en')} history entries (Ink into a headless terminal, 100×30, React ${react} build; ` +
      `key to frame, median of ${RUNS}; target: opening ≤ ${TARGET_MS} ms of CPU, which other processes on a busy machine do not inflate)`,
    ['history', 'size', 'open', 'open max', 'open, CPU', 'target met', 'filter, no match', 'pick a 100 KB entry'],
    rows,
  );
}
