import { describe, expect, it } from 'vitest';
import { PLAIN_KEY } from '../shared/plain-key.js';
import { splitRead } from './split-read.js';

const text = (input: string) => ({ input, key: PLAIN_KEY });
const ctrl = (letter: string) => ({ input: letter, key: { ...PLAIN_KEY, ctrl: true } });

describe('splitRead', () => {
  it('splits text from the keys typed after it, as Ink reads each alone', () => {
    expect(splitRead('my draft\u0007', PLAIN_KEY)).toEqual([text('my draft'), ctrl('g')]);
    expect(splitRead('a\u0017b\u0001\u0005', PLAIN_KEY)).toEqual([text('a'), ctrl('w'), text('b'), ctrl('a'), ctrl('e')]);
    expect(splitRead('ab\u007f\b', PLAIN_KEY)).toEqual([
      text('ab'),
      { input: '', key: { ...PLAIN_KEY, delete: true } },
      { input: '', key: { ...PLAIN_KEY, backspace: true } },
    ]);
  });

  it('leaves text with line breaks and tabs whole (a paste), and a key read alone as Ink gave it', () => {
    expect(splitRead('one\rtwo\nthree\tfour\r', PLAIN_KEY)).toEqual([text('one\rtwo\nthree\tfour\r')]);
    expect(splitRead('\u0007', PLAIN_KEY)).toEqual([text('\u0007')]);
    expect(splitRead('g', { ...PLAIN_KEY, ctrl: true })).toEqual([ctrl('g')]);
  });
});
