import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

/** How many characters went through renderMarkdown (the work of planning), counted where live-split calls it. */
const rendering = vi.hoisted(() => ({ chars: 0 }));
vi.mock('./markdown.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./markdown.js')>();
  return {
    ...actual,
    renderMarkdown: (...args: Parameters<typeof actual.renderMarkdown>) => {
      rendering.chars += args[0].length;
      return actual.renderMarkdown(...args);
    },
  };
});
import { planCommit, renderUnprinted, rowsOf, type CommitPlan } from './live-split.js';
import { renderMarkdown } from './markdown.js';

const room = { width: 40, columns: 42, maxRows: 6, printed: '' };

/**
 * Streams `text` a few characters at a time through planCommit as the chat does, and returns
 * what reached the scrollback (each piece rendered as the transcript renders it) and what is live at the end.
 */
/** The most rows the live text took between two pieces, in the last stream(). */
let tallestLive = 0;

function stream(text: string, options = room, step = 7): string {
  tallestLive = 0;
  const printedOut: string[] = [];
  let live = '';
  let printed = '';
  /** The live text goes on with a list item printed above (its marker not drawn again). */
  let continuesItem = false;
  let gapBefore = false;
  const put = (rendered: string, gap: boolean) => {
    if (rendered === '') return;
    printedOut.push(gap ? `\n${rendered}` : rendered);
  };
  const drain = () => {
    for (let plan: CommitPlan | null = planCommit(live, { ...options, printed }); plan; plan = planCommit(live, { ...options, printed })) {
      if (plan.kind === 'keep') {
        put(renderUnprinted(plan.through, printed, options.width, { open: true, continuesItem }), gapBefore);
        gapBefore = false;
        printed = plan.printed ?? plan.through;
        if (plan.live !== undefined) live = plan.live;
      } else {
        put(renderUnprinted(plan.commit, printed, options.width, { continuesItem }), gapBefore);
        gapBefore = plan.gap;
        printed = '';
        live = plan.rest;
        continuesItem = plan.continuesItem ?? false;
      }
    }
  };
  for (let i = 0; i < text.length; i += step) {
    live += text.slice(i, i + step);
    drain();
    tallestLive = Math.max(tallestLive, rowsOf(renderUnprinted(live, printed, options.width, { continuesItem }), options.columns));
  }
  put(renderUnprinted(live, printed, options.width, { continuesItem }), gapBefore);
  return printedOut.join('\n');
}

describe('planCommit: what of a streaming answer goes to the scrollback now', () => {
  it('keeps a short block live', () => {
    expect(planCommit('just one paragraph', room)).toBeNull();
  });

  it('moves every finished block at once, keeping the one still being written', () => {
    // The last line may yet turn the block before into something else (a list item, say): that one waits too.
    expect(planCommit('first para\n\nsecond para\n\nthird, still go', room)).toEqual({
      kind: 'text',
      commit: 'first para',
      rest: 'second para\n\nthird, still go',
      gap: true,
    });
    expect(planCommit('first para\n\nsecond para\n\nthird, still going\n', room)).toEqual({
      kind: 'text',
      commit: 'first para\n\nsecond para',
      rest: 'third, still going\n',
      gap: true,
    });
  });

  it('a list followed by a line not yet written is not finished: the line may be its next item', () => {
    // Its finished items go; the last one stays with what follows it.
    expect(planCommit('1. one\n2. two\n\n3', room)).toEqual({ kind: 'text', commit: '1. one', rest: '2. two\n\n3', gap: false });
    expect(planCommit('2. two\n\n3', room)).toBeNull();
    expect(planCommit('1. one\n2. two\n\nThree apples.\n', room)).toMatchObject({ kind: 'text', commit: '1. one\n2. two', gap: true });
  });

  it('never cuts inside a code fence; text before a fence that has begun goes first', () => {
    expect(planCommit(['intro', '', '```js', 'a()', '', 'b()'].join('\n'), room)).toMatchObject({ kind: 'text', commit: 'intro', gap: true });
    expect(planCommit(['Here:', '```js', 'a()'].join('\n'), room)).toMatchObject({ kind: 'text', commit: 'Here:', rest: '```js\na()' });
  });

  it('prints the finished lines of a code block as they finish, the block staying live for its context', () => {
    const code = ['```ts', 'one()', 'two()', 'three()', 'four()', 'five()', 'six()', 'sev'].join('\n');
    const through = '```ts\none()\ntwo()\nthree()\nfour()\nfive()\nsix()';
    expect(planCommit(code, room)).toEqual({ kind: 'keep', through });
    expect(planCommit(code, { ...room, printed: through })).toBeNull();
    expect(renderUnprinted(`${code}en()`, through, 40).trim()).toBe('seven()');
  });

  it('a long list moves out item by item and keeps counting', () => {
    const list = Array.from({ length: 10 }, (_, i) => `1. item ${i}`).join('\n');
    expect(planCommit(list, room)).toMatchObject({ kind: 'text', rest: '10. item 9', gap: false });
  });

  it('cuts a paragraph taller than the room at its last line break, or one long line at a space', () => {
    const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const plan = planCommit(long, room);
    expect(plan?.kind).toBe('text');
    if (plan?.kind !== 'text') return;
    expect(`${plan.commit} ${plan.rest}`).toBe(long);
    expect(rowsOf(renderMarkdown(plan.rest, room.width), room.columns)).toBeLessThanOrEqual(room.maxRows);
  });

  it('counts rows as the terminal wraps them, colours aside', () => {
    expect(rowsOf('', 10)).toBe(0);
    expect(rowsOf('abc\n\u001b[31m0123456789ab\u001b[0m', 10)).toBe(3);
  });
});

describe('streamed in pieces, printed as one render of the whole', () => {
  const nested = Array.from({ length: 60 }, (_, i) => `${i + 1}. item ${i + 1}\n   - detail ${i + 1}a\n     - deeper ${i + 1}\n   - detail ${i + 1}b`).join('\n');
  const table = ['| # | Name | Description |', '|---|:---|---:|', ...Array.from({ length: 40 }, (_, i) => `| ${i + 1} | ROW-${String(i + 1).padStart(3, '0')} | row ${i + 1} says \`something\` longer than its column |`)].join('\n');
  const code = ['```ts', ...Array.from({ length: 30 }, (_, i) => `const line${i} = ${i};`), '```'].join('\n');
  const mixed = ['# A mixed answer', 'Intro paragraph with **bold** and `code`.', nested, table, code, '- last\n- list', 'The end.'].join('\n\n');
  const cases: [string, string][] = [
    ['a nested list of 60 items', nested],
    ['a 40-row table', table],
    ['a code block', code],
    ['a mixed document', mixed],
    ['a loose list (blank lines between items)', Array.from({ length: 30 }, (_, i) => `${i + 1}. item ${i + 1}`).join('\n\n')],
  ];
  for (const [name, text] of cases) {
    for (const size of [
      { width: 58, columns: 60, maxRows: 15, printed: '' },
      { width: 98, columns: 100, maxRows: 25, printed: '' },
    ]) {
      it(`${name} at ${size.columns} columns`, () => {
        expect(stream(text, size)).toBe(renderMarkdown(text, size.width));
      });
    }
  }

  describe('a paragraph taller than the room, cut only where one render wraps it', () => {
    // With colours on (FORCE_COLOR=1), the codes may sit elsewhere (each piece has the paragraph's
    // reset; a style opens at the end of the row before it) and show alike: compared as shown.
    const visible = (rendered: string) =>
      stripVTControlCharacters(rendered)
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n');
    const words = (count: number, styled: boolean) =>
      Array.from({ length: count }, (_, i) => {
        if (!styled) return `w${i}x`;
        if (i % 13 === 4) return `**bold b${i}x and more**`;
        if (i % 17 === 8) return `\`code c${i}x()\``;
        if (i % 29 === 11) return `*it${i}x*`;
        if (i % 37 === 20) return `[a link ${i}](https://example.com/p${i})`;
        return i % 5 === 0 ? `longerword${i}x` : `w${i}x`;
      }).join(' ');
    for (const count of [600, 2000]) {
      for (const styled of [false, true]) {
        for (const columns of [60, 100, 200]) {
          it(`${count} words${styled ? ' with bold, code, emphasis and links' : ''} at ${columns} columns`, () => {
            const text = `${words(count, styled)}\n\nThe end.`;
            const size = { width: columns - 2, columns, maxRows: 15, printed: '' };
            expect(visible(stream(text, size))).toBe(visible(renderMarkdown(text, size.width)));
          });
        }
      }
    }

    for (const [container, wrap] of [
      ['a list item', (body: string) => `Intro.\n\n1. first\n2. ${body}\n3. next\n\nThe end.`],
      ['a quote', (body: string) => `Intro.\n\n> ${body}\n\nThe end.`],
      ['a quote written a line at a time', (body: string) => `Intro.\n\n> ${body.replace(/ (w\d*0x)/g, '\n> $1')}\n\nThe end.`],
      ['a bullet with more lines', (body: string) => `- ${body.replace(/ (w\d*0x)/g, '\n  $1')}\n\nThe end.`],
    ] as const) {
      for (const count of [600, 2000]) {
        for (const styled of [false, true]) {
          it(`${count} words${styled ? ' with bold, code, emphasis and links' : ''} in ${container}, kept a row or two live`, () => {
            const text = wrap(words(count, styled));
            for (const columns of [60, 100]) {
              const size = { width: columns - 2, columns, maxRows: 15, printed: '' };
              rendering.chars = 0;
              const streamed = stream(text, size);
              const rendered = rendering.chars;
              expect(visible(streamed)).toBe(visible(renderMarkdown(text, size.width)));
              // Its last rows, and those a span still open may change (at its end, a blank line and the next line too):
              // cut at a space, as many rows as the room held were live.
              expect(tallestLive).toBeLessThanOrEqual(5);
              // Every piece of 7 characters is planned (a few renders each, of the live rows, not the whole item):
              // the characters rendered grow with the item's length, not its square — 57-115 per character
              // at 600 and 2,000 words alike; rendering all of it so far for each piece would add ~900-1,500 at 2,000 words.
              expect(rendered / text.length).toBeLessThan(300);
            }
          });
        }
      }
    }

    it('the rest of a list item stays live without its marker, under the rows printed', () => {
      const text = `2. ${words(200, false)}`;
      const plan = planCommit(text, room);
      expect(plan).toMatchObject({ kind: 'text', continuesItem: true });
      if (plan?.kind !== 'text') return;
      expect(plan.rest).toMatch(/^2\. w\d+x/);
      const rest = renderUnprinted(plan.rest, '', room.width, { continuesItem: true }).split('\n');
      expect(rest.length).toBeLessThanOrEqual(2);
      expect(rest[0]).toMatch(/^ {5}w\d+x/);
      expect(`${renderMarkdown(plan.commit, room.width)}\n${rest.join('\n')}`).toBe(renderMarkdown(text, room.width));
    });

    it('the rest of a quote stays live as a quote', () => {
      const text = `> ${words(200, false)}`;
      const plan = planCommit(text, room);
      expect(plan).toMatchObject({ kind: 'text', gap: false });
      if (plan?.kind !== 'text') return;
      expect(plan.rest).toMatch(/^> w\d+x/);
      expect(plan).not.toHaveProperty('continuesItem');
      expect(`${renderMarkdown(plan.commit, room.width)}\n${renderMarkdown(plan.rest, room.width)}`).toBe(renderMarkdown(text, room.width));
    });

    it('a line of `---` or `===` under a long paragraph is no setext heading: its rows were printed as a paragraph', () => {
      for (const line of ['---', '===']) {
        const text = `${words(300, false)}\n${line}\n\nThe end.`;
        const size = { width: 58, columns: 60, maxRows: 15, printed: '' };
        expect(stream(text, size)).toBe(renderMarkdown(text, size.width));
        expect(renderMarkdown(text, size.width)).toMatch(/^w0x w1x/);
      }
    });

    it('keeps only the rows still being written live', () => {
      const text = words(200, true);
      const plan = planCommit(text, room);
      expect(plan?.kind).toBe('text');
      if (plan?.kind !== 'text') return;
      expect(renderMarkdown(plan.rest, room.width).split('\n').length).toBeLessThanOrEqual(2);
      expect(visible(`${renderMarkdown(plan.commit, room.width)}\n${renderMarkdown(plan.rest, room.width)}`)).toBe(visible(renderMarkdown(text, room.width)));
    });

    it('never cuts off a row a span still open would change, while there is room', () => {
      // Once the code span closes its backticks vanish, and the rows from it on narrow.
      const open = `${words(40, false)} \`an open code span with words ${words(30, false)}`;
      const plan = planCommit(open, { ...room, maxRows: 20 });
      if (plan?.kind === 'text') expect(plan.commit).not.toContain('`');
      else expect(plan).toBeNull();
    });

    it('a marker that never closes (2*3, a lone backtick) keeps it live only for a while', () => {
      const stray = `${words(30, false)} 2*3 and a lone \` here ${words(600, false)}`;
      const size = { width: 58, columns: 60, maxRows: 15, printed: '' };
      expect(stream(stray, size)).toBe(renderMarkdown(stray, size.width));
      const plan = planCommit(stray, size);
      expect(plan?.kind).toBe('text');
      if (plan?.kind === 'text') expect(renderMarkdown(plan.rest, size.width).split('\n').length).toBeLessThanOrEqual(2);
    });

    it('a line that may be the header of a table stays live until the next line says', () => {
      const text = `${words(60, false)}\n| ${words(30, false)} | b |\n|---|---|\n| 1 | 2 |`;
      const size = { width: 38, columns: 40, maxRows: 15, printed: '' };
      expect(stream(text, size, 3)).toBe(renderMarkdown(text, size.width));
    });

    it('long spans that open and close while it streams', () => {
      const spans = `${words(50, false)} \`a code span of ${words(25, false)}\` then **bold for ${words(30, false)} words** and *emphasis ${words(20, false)}* [a link with ${words(12, false)}](https://example.com) ${words(60, false)}`;
      for (const columns of [42, 60, 100]) {
        const size = { width: columns - 2, columns, maxRows: 20, printed: '' };
        expect(visible(stream(spans, size, 3))).toBe(visible(renderMarkdown(spans, size.width)));
      }
    });
  });

  it('a list keeps counting from its first number, whatever the model wrote after it', () => {
    const ones = Array.from({ length: 40 }, (_, i) => `1. item ${i + 1}`).join('\n');
    const out = stream(ones, { width: 38, columns: 40, maxRows: 6, printed: '' });
    expect(out).toBe(renderMarkdown(ones, 38));
    expect(out).toContain('40. item 40');
  });

  it('a table at 60 columns stays a box: cells wrap inside their columns', () => {
    const wide = ['| Name | Description | Notes |', '|---|---|---|', ...Array.from({ length: 5 }, (_, i) => `| n${i} | ${'long words '.repeat(8)} | ${'more '.repeat(10)} |`)].join('\n');
    const lines = renderMarkdown(wide, 58).split('\n').map((line) => line.replace(/\u001b\[[0-9;]*m/g, ''));
    for (const line of lines) expect(line.length).toBe(lines[0]?.length);
    expect(lines[0]?.length).toBeLessThanOrEqual(58);
    for (const line of lines.slice(3, -1)) expect(line.split('│')).toHaveLength(5);
  });
});
