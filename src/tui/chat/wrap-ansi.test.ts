import wrapAnsi from 'wrap-ansi';
import { describe, expect, it } from 'vitest';
import { wrapAnsiHard } from './wrap-ansi.js';

/** A text in an SGR style, closed as chalk closes it. */
const sgr = (open: string, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const bold = sgr('1', 22);
const italic = sgr('3', 23);
const yellow = sgr('33', 39);
const link = (text: string) => sgr('34', 39)(sgr('4', 24)(text));
const grayOnRed = (text: string) => sgr('41', 49)(sgr('90', 39)(text));

/** Words of every kind a rendered answer holds: styles, links, words wider than a row, runs of spaces, wide characters. */
const words = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    if (i % 13 === 4) return bold(`bold b${i}x and more`);
    if (i % 17 === 8) return yellow(`code c${i}x()`);
    if (i % 29 === 11) return italic(`it${i}x`);
    if (i % 37 === 20) return `a link ${i} ${link(`(https://example.com/p${i})`)}`;
    if (i % 41 === 3) return `averyveryveryverylongwordthatexceedsthewidthofthecolumnaltogether${i}`;
    if (i % 43 === 5) return '  double  spaced ';
    if (i % 47 === 6) return 'héllo wörld 日本語テキスト 😀';
    if (i % 53 === 7) return grayOnRed(`bg ${i} and gray`);
    return i % 5 === 0 ? `longerword${i}x` : `w${i}x`;
  }).join(' ');

describe('wrapAnsiHard: wrap-ansi, measured faster', () => {
  it('wraps as wrap-ansi does (hard), trimmed or not, every kind of word', () => {
    for (const count of [1, 5, 30, 200])
      for (const columns of [10, 20, 37, 56, 96])
        for (const trim of [true, false])
          for (const text of [words(count), ` ${words(count)} `, words(count).replace(/ w/g, '\nw')]) {
            expect(wrapAnsiHard(text, columns, trim)).toBe(wrapAnsi(text, columns, { hard: true, trim }));
          }
  });

  it('stays linear: 10,000 styled words in one list item wrap in well under 2 s', () => {
    // Re-measuring the row being filled at every word (wrap-ansi's own way) grows with the square
    // of the words: ~0.27 s for 2,000 here, so ~7 s for 10,000; a running width takes ~0.2 s. The
    // bound is loose on purpose: it catches the quadratic walk, not a loaded machine.
    const text = words(10_000);
    const started = performance.now();
    wrapAnsiHard(text, 56, true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
