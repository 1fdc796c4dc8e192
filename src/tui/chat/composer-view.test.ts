import { describe, expect, it } from 'vitest';
import { withText, type Editor } from '../shared/editor.js';
import { composerView } from './composer-view.js';

/** The rows as text, the cursor as `|`. */
const drawn = (editor: Editor, width: number, maxRows: number) => {
  const view = composerView(editor, width, maxRows);
  return { rows: view.rows.map((row) => (row.cursor === null ? row.text : `${row.text.slice(0, row.cursor)}|${row.text.slice(row.cursor)}`)), hidden: view.hidden };
};

describe('the composer\'s rows', () => {
  it('cuts a long line at the width, keeping a column for the cursor', () => {
    expect(drawn(withText('abcdefghij'), 5, 10)).toEqual({ rows: ['abcd', 'efgh', 'ij|'], hidden: 0 });
    // At a row's end the cursor starts the next row; at the line's end it stays.
    expect(drawn({ text: 'abcdefgh', cursor: 4 }, 5, 10).rows).toEqual(['abcd', '|efgh']);
    expect(drawn(withText('abcd'), 5, 10).rows).toEqual(['abcd|']);
    expect(drawn(withText('漢字漢字'), 5, 10).rows).toEqual(['漢字', '漢字|']);
  });

  it('keeps lines and empty lines', () => {
    expect(drawn({ text: 'one\n\nthree', cursor: 4 }, 20, 10).rows).toEqual(['one', '|', 'three']);
    expect(drawn(withText('one\n'), 20, 10).rows).toEqual(['one', '|']);
  });

  it('shows at most maxRows around the cursor, as low as it can, and counts the others', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    expect(drawn(withText(lines), 20, 4)).toEqual({ rows: ['line 47', 'line 48', 'line 49|'], hidden: 47 });
    expect(drawn({ text: lines, cursor: 0 }, 20, 4)).toEqual({ rows: ['|line 0', 'line 1', 'line 2'], hidden: 47 });
    const middle = lines.indexOf('line 25');
    expect(drawn({ text: lines, cursor: middle }, 20, 4)).toEqual({ rows: ['line 23', 'line 24', '|line 25'], hidden: 47 });
  });

  it('reads only the lines near the cursor of a long draft', () => {
    const long = `${'x'.repeat(200)}\n${Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n')}`;
    expect(drawn({ text: long, cursor: 0 }, 80, 5)).toEqual({ rows: ['|' + 'x'.repeat(79), 'x'.repeat(79), 'x'.repeat(42), 'line 0'], hidden: 99_999 });
    // Far from the cursor a line counts as one, however many rows it would take.
    expect(drawn(withText(long), 80, 5)).toEqual({ rows: ['line 99996', 'line 99997', 'line 99998', 'line 99999|'], hidden: 99_997 });
  });
});
