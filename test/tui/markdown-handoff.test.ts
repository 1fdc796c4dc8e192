import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Ink draws frames only where it believes a person watches: not "in CI". These tests are that
// person, so CI must not change what Ink writes.
vi.hoisted(() => {
  process.env.CI = 'false';
  delete process.env.CONTINUOUS_INTEGRATION;
});

import { markdownWidth, renderMarkdown } from '../../src/tui/chat/markdown.js';
import { chatOnScreen } from '../bench/lib/chat-screen.js';
import { headlessTerminal } from '../helpers/xterm.js';
import { hasTmux, startTerminal } from '../helpers/tmux.js';
import { scriptedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 26: long answers lost their shape where the streaming answer was handed to the
 * scrollback (numbered lists restarting, tables turning into raw text, nested items dropping a
 * level, lines lost or doubled on a resize). Each answer here streams into a real terminal
 * emulator (xterm.js, headless) through the chat as Ink draws it in production, and what the
 * scrollback ends up holding is compared, row for row, with one render of the finished answer.
 */

let answer = '';
/** Runs between two deltas of the answer (a resize at a chosen point of it). */
let betweenDeltas: (() => Promise<void>) | null = null;
let server: TestServer;
const DELTA = 40;
beforeAll(async () => {
  // 40 characters a delta, a few milliseconds apart: a long answer in hundreds of pieces, each its
  // own redraw (redrawMs 0 below), so that it is handed to the scrollback hundreds of times.
  server = await startTestServer({ providers: [scriptedProvider(() => answer, DELTA, async () => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    await betweenDeltas?.();
  })] });
});
afterAll(() => server.close());

/**
 * A numbered list, two levels nested under each item. `sloppy`: nested by three spaces under
 * every item, as models often write it; under "10." and after that is no longer nested
 * (CommonMark wants the marker's width), and one render shows it so: the streamed one must too.
 */
const nestedList = (items: number, sloppy = false) =>
  Array.from({ length: items }, (_, i) => {
    const pad = ' '.repeat(sloppy ? 3 : String(i + 1).length + 2);
    return `${i + 1}. item I${i + 1}x of the list\n${pad}- detail D${i + 1}x\n${pad}  - deeper E${i + 1}x\n${pad}- another F${i + 1}x`;
  }).join('\n');
const table = (rows: number) =>
  [
    '| # | Name | Description |',
    '|---:|---|---|',
    ...Array.from({ length: rows }, (_, i) => `| ${i + 1} | ROW-${String(i + 1).padStart(3, '0')} | row R${i + 1}x says \`something\` a little longer |`),
  ].join('\n');
const code = (lines: number) => ['```ts', ...Array.from({ length: lines }, (_, i) => `const line${i} = compute(${i}); // C${i}x`), '```'].join('\n');
const mixed = [
  '# A long answer',
  'First, a paragraph with **bold**, `code` and [a link](https://example.com).',
  nestedList(40),
  'Then a table:',
  table(30),
  code(30),
  '> A quote at the end.',
  '- a short\n- list',
  'The end.',
].join('\n\n');

const ANSWERS: [string, string][] = [
  ['300 nested list items', nestedList(300)],
  ['a 100-row table', table(100)],
  ['a mixed document', mixed],
];

/** What one render of the answer prints, row for row, as the terminal shows it. */
const oneShot = (text: string, columns: number) =>
  renderMarkdown(text, markdownWidth(columns))
    .split('\n')
    .map((line) => stripVTControlCharacters(line).trimEnd());

/** Streams `text` as the answer to one question; the terminal's rows once the chat is idle again. */
async function streamed(text: string, columns: number, rows: number, resize?: { after: string; to: [number, number] }) {
  answer = text;
  const screen = await chatOnScreen({ server, columns, rows, settings: { model: 'script/answer', redrawMs: 0 } });
  const { terminal, stdin } = screen;
  let deltas = 0;
  let written = '';
  screen.onWrite((data) => {
    // From the delta that brings the end of `after` (it comes once `deltas` is one short of it).
    if (resize && deltas >= resizeAt - 1) written += data;
  });
  // The terminal changes size once the answer has streamed past `after`, and the live rows show
  // its end (Ink draws at most 30 frames a second: the rows on the screen may lag the stream).
  const resizeAt = resize ? Math.ceil((text.indexOf(resize.after) + resize.after.length) / DELTA) : -1;
  betweenDeltas = async () => {
    if (++deltas !== resizeAt || !resize) return;
    const shown = resize.after.slice(-8);
    await vi.waitFor(() => expect(stripVTControlCharacters(written)).toContain(shown), { timeout: 10_000, interval: 5 });
    await terminal.resize(...resize.to);
  };
  stdin.write('show me');
  stdin.write('\r');
  await vi.waitFor(
    async () => {
      const lines = await terminal.lines();
      // The status line of an idle chat says what the answer cost.
      expect(lines.some((line) => /\d+ tokens · \d+ credits/.test(line))).toBe(true);
    },
    { timeout: 60_000, interval: 25 },
  );
  screen.unmount();
  betweenDeltas = null;
  expect(deltas).toBeGreaterThan(resizeAt);
  const lines = await terminal.lines();
  terminal.dispose();
  const question = lines.findIndex((line) => line === '› show me');
  expect(question).toBeGreaterThanOrEqual(0);
  // The answer starts after one blank line.
  expect(lines[question + 1]).toBe('');
  return { lines: lines.slice(question + 2), raw: terminal.raw() };
}

describe('a streamed answer reaches the scrollback exactly as one render of it', () => {
  for (const [name, text] of ANSWERS) {
    for (const [columns, rows] of [
      [60, 20],
      [100, 30],
      [200, 50],
    ] as const) {
      it(`${name} at ${columns}×${rows}`, async () => {
        const expected = oneShot(text, columns);
        const { lines, raw } = await streamed(text, columns, rows);
        expect(raw).not.toContain('\u001b[2J');
        expect(lines.slice(0, expected.length)).toEqual(expected);
        // After it, the chat's own rows: nothing of the answer again.
        expect(lines[expected.length]).toBe('');
        expect(raw).not.toContain('\u001b[3J');
      }, 90_000);
    }
  }

  it('a list nested by three spaces under items of two digits (no longer nested there) at 100×30', async () => {
    const text = nestedList(120, true);
    const { lines, raw } = await streamed(text, 100, 30);
    const expected = oneShot(text, 100);
    expect(lines.slice(0, expected.length)).toEqual(expected);
    expect(raw).not.toContain('\u001b[2J');
  }, 90_000);
});

/** The markers of `pattern` in the order the rows show them. */
const markers = (lines: string[], pattern: RegExp) => lines.flatMap((line) => [...line.matchAll(pattern)].map((m) => m[0]));

describe('a resize while an answer streams loses and doubles nothing, and keeps the shapes', () => {
  const cases: { name: string; after: string; from: [number, number]; to: [number, number] }[] = [
    { name: 'in a table, 100 → 60 columns', after: 'R5x', from: [100, 30], to: [60, 30] },
    { name: 'in a table, 80 → 120 columns', after: 'R5x', from: [80, 24], to: [120, 30] },
    { name: 'in a list, 100 → 60 columns', after: 'I23x', from: [100, 30], to: [60, 30] },
    { name: 'in a list, 80 → 120 columns', after: 'I39x', from: [80, 24], to: [120, 30] },
    { name: 'in a code block, 200 → 60 columns', after: 'C12x', from: [200, 50], to: [60, 50] },
  ];
  for (const { name, after, from, to } of cases) {
    it(`a mixed document, ${name}`, async () => {
      const { lines, raw } = await streamed(mixed, ...from, { after, to });
      expect(raw).not.toContain('\u001b[2J');
      expect(raw).not.toContain('\u001b[3J');
      const expected = oneShot(mixed, from[0]);
      for (const [kind, pattern] of [
        ['list items', /\b[IDEF]\d+x\b/g],
        ['table rows', /\bR\d+x\b/g],
        ['code lines', /\bC\d+x\b/g],
      ] as const) {
        const found = markers(lines, pattern);
        // Narrowed too: the terminal rewraps the live rows into more rows than Ink drew, and the
        // chat erases those rows, not only the ones Ink counts (rewrap-erase.ts).
        expect(found, kind).toEqual(markers(expected, pattern));
      }
      // Lists count on and keep their depth: item n is numbered n, its details under it.
      for (let n = 1; n <= 40; n++) {
        expect(lines.filter((line) => line.includes(`item I${n}x`))).toEqual([expect.stringMatching(new RegExp(`^ {2}${n}\\. item I${n}x`))]);
        const detail = lines.find((line) => line.includes(`D${n}x`)) ?? '';
        const deeper = lines.find((line) => line.includes(`E${n}x`)) ?? '';
        expect(deeper.indexOf('*')).toBeGreaterThan(detail.indexOf('*'));
        expect(detail.indexOf('*')).toBeGreaterThan(2);
      }
      // Code stays fenced: indented as a code block, never a paragraph.
      for (const line of lines.filter((l) => /\bC\d+x\b/.test(l))) expect(line).toMatch(/^ {2}\S/);
      // The rows printed after the resize are rows of one box, drawn for the new width: as many
      // columns as the header, all as wide. (Those printed before, the terminal itself rewraps.)
      if (!after.startsWith('R')) return;
      const last = lines.filter((l) => /\bR(2[5-9]|30)x\b/.test(l));
      expect(last).toHaveLength(6);
      for (const line of last) expect(line.split('│')).toHaveLength(5);
      expect(new Set(last.map((line) => line.length)).size).toBe(1);
      expect(last[0]?.length).toBeLessThanOrEqual(to[0]);
    }, 90_000);
  }
});

/**
 * A paragraph of `count` words; `styled`: with bold, code, emphasis and `links` among them. (With
 * colours on, as in tmux, a link wraps differently from the render here, which has none.)
 */
const paragraph = (count: number, styled: boolean, links = true) =>
  Array.from({ length: count }, (_, i) => {
    if (!styled) return `w${i}x`;
    if (i % 13 === 4) return `**bold w${i}x and more**`;
    if (i % 17 === 8) return `\`code w${i}x()\``;
    if (i % 29 === 11) return `*w${i}x*`;
    if (links && i % 37 === 20) return `[a link w${i}x](https://example.com/p${i})`;
    return i % 5 === 0 ? `longerword w${i}x` : `w${i}x`;
  }).join(' ');

describe('a paragraph taller than the live region reaches the scrollback as one render wraps it', () => {
  // Its rows go to the scrollback as it streams. Inside a list item or a quote, the rest stays live
  // as the item's continuation (its indent, no marker again) or the quote's (container-cut.ts):
  // cut at a space there, the rows were ragged.
  const places: [string, (body: string) => string][] = [
    ['', (body) => `Intro.\n\n${body}\n\nThe end.`],
    [' in a list item', (body) => `Intro.\n\n1. first\n2. ${body}\n3. next\n\nThe end.`],
    [' in a quote', (body) => `Intro.\n\n> ${body}\n\nThe end.`],
  ];
  for (const [place, wrap] of places) {
    for (const count of [600, 2000]) {
      for (const styled of [false, true]) {
        for (const [columns, rows] of [
          [60, 20],
          [100, 30],
          [200, 50],
        ] as const) {
          it(`${count} words${styled ? ' with bold, code, emphasis and links' : ''}${place} at ${columns}×${rows}`, async () => {
            const text = wrap(paragraph(count, styled));
            const expected = oneShot(text, columns);
            const { lines, raw } = await streamed(text, columns, rows);
            expect(raw).not.toContain('\u001b[2J');
            expect(lines.slice(0, expected.length)).toEqual(expected);
            expect(lines[expected.length]).toBe('');
          }, 90_000);
        }
      }
    }
  }
});

describe('a height shrink mid-paragraph: the scrollback is the one-shot render, byte for byte', () => {
  // The paragraph's finished rows are in the scrollback as it streams, and only its last rows are
  // live: a terminal made shorter has no live rows to push up into the scrollback (printed again
  // later, they were doubled) nor a frame taller than itself (Ink cleared the screen for it).
  const shrinks: [string, [number, number], [number, number]][] = [
    ['100×30 → 100×14', [100, 30], [100, 14]],
    ['200×50 → 200×20', [200, 50], [200, 20]],
    ['60×20 → 60×8', [60, 20], [60, 8]],
  ];
  for (const [name, from, to] of shrinks) {
    for (const styled of [false, true]) {
      it(`600 words${styled ? ' with bold, code, emphasis and links' : ''}, ${name}`, async () => {
        const text = `Intro.\n\n${paragraph(600, styled)}\n\nThe end.`;
        const { lines, raw } = await streamed(text, ...from, { after: 'w400x', to });
        expect(raw).not.toContain('\u001b[2J');
        expect(raw).not.toContain('\u001b[3J');
        const expected = oneShot(text, from[0]);
        expect(lines.slice(0, expected.length)).toEqual(expected);
        expect(lines[expected.length]).toBe('');
      }, 90_000);
    }
  }
});

/** A list item's or a table row's mark (I7x, R12x): the same at every width. */
const MARK = /\b[IDEFLR]\d+x\b/;

/** The rows of `to` (the render at the new width) from where row `split` of `from` (at the old) starts. */
function restAt(from: string[], to: string[], split: number): string[] {
  if (split >= from.length) return [];
  const mark = MARK.exec(from[split] ?? '')?.[0];
  // A row without a mark (a rule of a table) is found by its place from the end.
  return to.slice(mark ? to.findIndex((line) => new RegExp(`\\b${mark}\\b`).test(line)) : to.length - (from.length - split));
}

/**
 * What a terminal shows when the first `split` rows of the one-shot render were printed at the
 * old size, the terminal was resized (and rewrapped them), and the rest was printed at the new
 * size (the table's box drawn for it): where a streamed answer is cut by a resize, nothing else
 * may differ.
 */
async function printedAcross(text: string, from: [number, number], to: [number, number], split: number): Promise<string[]> {
  const terminal = headlessTerminal(...from);
  terminal.print(oneShot(text, from[0]).slice(0, split).map((line) => `${line}\n`).join(''));
  await terminal.resize(...to);
  terminal.print(restAt(oneShot(text, from[0]), oneShot(text, to[0]), split).map((line) => `${line}\n`).join(''));
  const lines = await terminal.lines();
  terminal.dispose();
  return lines;
}

/** How many leading rows two row lists share. */
const sharedRows = (a: string[], b: string[]) => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

describe('a resize while a list or a table streams: the scrollback is the one-shot render, byte for byte', () => {
  // Items wider than 100 columns: live rows the terminal rewraps when it narrows.
  const longItems = Array.from({ length: 60 }, (_, i) => `${i + 1}. item L${i + 1}x: a longer line of the list, which wraps once the terminal is narrow, and then goes on for a while`).join('\n');
  const documents: [string, string, string][] = [
    ['60 nested list items', nestedList(60), 'I23x'],
    // Resized while the live item is wider than 60 columns.
    ['60 list items of 120 columns', longItems, 'L23x: a longer line of the list, which wraps once the'],
    ['a 60-row table', table(60), 'R20x'],
  ];
  const resizes: [string, [number, number], [number, number]][] = [
    ['100×30 → 60×30', [100, 30], [60, 30]],
    ['80×24 → 120×30', [80, 24], [120, 30]],
    ['100×30 → 100×14', [100, 30], [100, 14]],
  ];
  for (const [name, text, after] of documents) {
    for (const [resize, from, to] of resizes) {
      it(`${name}, ${resize}`, async () => {
        const { lines: answer, raw } = await streamed(text, ...from, { after, to });
        // Never a cleared screen or scrollback.
        expect(raw).not.toContain('\u001b[2J');
        expect(raw).not.toContain('\u001b[3J');
        // The answer's rows are the one-shot render at the old size up to some row, the rest at the
        // new size, as the terminal rewraps them: find that row, then every row must match.
        const rows = oneShot(text, from[0]).length;
        let best: string[] = [];
        for (let split = 0; split <= rows; split++) {
          const expected = await printedAcross(text, from, to, split);
          if (sharedRows(expected, answer) > sharedRows(best, answer)) best = expected;
          if (sharedRows(expected, answer) === expected.length) break;
        }
        expect(answer.slice(0, best.length)).toEqual(best);
        // After it, the chat's own rows: nothing of the answer again.
        expect(answer[best.length]).toBe('');
      }, 90_000);
    }
  }
});

describe.skipIf(!hasTmux)('in a real terminal (tmux, svc chat), resized mid-answer', () => {
  /**
   * `svc chat` streams `text` in tmux; once `after` is on the screen the answer waits until the
   * terminal has taken size `to`. The answer's rows as tmux holds them, wrapped rows joined back
   * (-J), once the chat is idle.
   */
  async function streamedInTmux(text: string, after: string, to: [number, number]): Promise<string[]> {
    answer = text;
    const session = startTerminal('handoff', ['chat', '--api-url', server.url, '--model', 'script/answer'], { columns: 100, rows: 30 }, {
      SVC_API_KEY: server.liveKey,
    });
    try {
      await session.showing('Ask anything');
      let resized: () => void = () => {};
      const done = new Promise<void>((resolve) => (resized = resolve));
      let deltas = 0;
      const resizeAt = Math.ceil((text.indexOf(after) + after.length) / DELTA);
      betweenDeltas = async () => {
        if (++deltas === resizeAt) await done;
      };
      session.send('show me', { literal: true });
      session.send('Enter');
      await session.poll(`${after} on the screen`, () => session.screen().includes(after));
      session.resize(...to);
      // tmux has taken the new size. The chat may not have heard yet (its SIGWINCH on its way, on a
      // loaded machine), and frames it draws at the old width meanwhile must leave nothing either.
      await session.poll('the new size', () => {
        const rows = session.screen().replace(/\n$/, '').split('\n');
        return rows.length === to[1] && rows.every((line) => line.length <= to[0]);
      });
      resized();
      await session.poll('the answer', () => /\d+ tokens · \d+ credits/.test(session.screen()));
      const lines = session.scrollback().split('\n').map((line) => line.trimEnd());
      const question = lines.findIndex((line) => line === '› show me');
      expect(question).toBeGreaterThanOrEqual(0);
      return lines.slice(question + 2);
    } finally {
      betweenDeltas = null;
      session.close();
    }
  }

  const cases: [string, string, string][] = [
    ['a 60-row table', table(60), 'R20x'],
    ['60 nested list items', nestedList(60), 'I23x'],
  ];
  for (const [name, text, after] of cases) {
    it(`${name}, 100×30 → 60×30`, async () => {
      const rows = await streamedInTmux(text, after, [60, 30]);
      // Joined back, the rows printed before the resize are the render at 100 columns.
      const from = oneShot(text, 100);
      const to = oneShot(text, 60);
      const candidates = Array.from({ length: from.length + 1 }, (_, split) => [...from.slice(0, split), ...restAt(from, to, split)]);
      const best = candidates.reduce((a, b) => (sharedRows(b, rows) > sharedRows(a, rows) ? b : a));
      expect(rows.slice(0, best.length)).toEqual(best);
      expect(rows[best.length]).toBe('');
    }, 90_000);
  }

  it('a long paragraph, 100×30 → 100×14: the scrollback is the one-shot render', async () => {
    const text = `Intro.\n\n${paragraph(600, true, false)}\n\nThe end.`;
    const rows = await streamedInTmux(text, 'w400x', [100, 14]);
    const expected = oneShot(text, 100);
    expect(rows.slice(0, expected.length)).toEqual(expected);
    expect(rows[expected.length]).toBe('');
  }, 90_000);
});
