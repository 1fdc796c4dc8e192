import { describe, expect, it } from 'vitest';
import { openerFor } from './open-url.js';

// The opener itself is never started in tests: only which command it would be.
describe('openerFor', () => {
  const url = 'http://127.0.0.1:8787/sandbox/checkout/cs_1?a=1&b=2';

  it('uses xdg-open on Linux and the BSDs', () => {
    expect(openerFor(url, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(openerFor(url, 'freebsd')).toEqual({ command: 'xdg-open', args: [url] });
  });

  it('uses open on macOS', () => {
    expect(openerFor(url, 'darwin')).toEqual({ command: 'open', args: [url] });
  });

  it('uses start through cmd on Windows, with the characters cmd would read escaped', () => {
    const opener = openerFor(url, 'win32');
    expect(opener.command).toBe('cmd');
    expect(opener.args.at(-1)).toBe('start "" http://127.0.0.1:8787/sandbox/checkout/cs_1?a=1^&b=2');
  });
});
