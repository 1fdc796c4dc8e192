import { useStdout } from 'ink';
import { useEffect, useRef } from 'react';
import { afterWrite, EMPTY_SCREEN, redrawInPlace } from './ink-writes.js';
import { eraseRewrappedFrame } from './rewrap-erase.js';
import { terminalWidthNow } from './terminal-width.js';

/**
 * Keeps Ink from damaging the scrollback when the terminal changes size under it: reads what Ink
 * writes to `stdout` (ink-writes.ts); ahead of each write of Ink's, erases the rows its last frame
 * takes once a resized terminal has rewrapped it (rewrap-erase.ts); and turns Ink's clear of the whole
 * terminal (after a height shrink under a tall frame) into a redraw in place. Returns the undo.
 */
export function keepScrollback(stdout: NodeJS.WriteStream): () => void {
  let screen = EMPTY_SCREEN;
  const write = stdout.write;
  // The terminal resizes (and rewraps its rows) before its SIGWINCH reaches us, and until it does
  // Ink goes on drawing at the old width: on a loaded machine, a spinner's tick and frame after
  // frame of a streaming answer, each wrapped by the narrower terminal into more rows than Ink
  // counts. So a write first asks the terminal its width and erases the last frame as it stands at
  // that width, whenever Ink's own erase would fall short.
  const eraseAsItStands = (columns: number) => {
    const erase = screen.frame && columns ? eraseRewrappedFrame(screen.frame, columns) : '';
    if (!erase) return;
    write.call(stdout, erase);
    // What Ink believes is its frame is now that many blank rows.
    screen = { ...screen, frame: '\n'.repeat(screen.frame.split('\n').length - 1) };
  };
  // The width the last write found. A frame can stand rewrapped only after the width changed, or
  // while Ink still draws for a wider terminal than there is (its signal on its way).
  let checked = stdout.columns;
  const watching = function (this: NodeJS.WriteStream, ...args: unknown[]) {
    const [data, ...rest] = args;
    if (typeof data !== 'string' && !(data instanceof Uint8Array)) return Reflect.apply(write, this, args) as boolean;
    const now = terminalWidthNow(stdout);
    if (now !== checked || now < stdout.columns) eraseAsItStands(now);
    checked = now;
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    const redraw = redrawInPlace(screen, text, { columns: stdout.columns || 80, rows: stdout.rows || 24 });
    if (redraw) {
      screen = { ...screen, frame: redraw.frame, maybeStatic: null, afterErase: false };
      return Reflect.apply(write, this, [redraw.write, ...rest]) as boolean;
    }
    screen = afterWrite(screen, text);
    return Reflect.apply(write, this, args) as boolean;
  } as typeof write;
  stdout.write = watching;
  // Ink's redraw at the signal writes through `watching` too: no listener of our own is needed.
  return () => {
    if (stdout.write === watching) stdout.write = write;
  };
}

/**
 * keepScrollback on the output Ink draws to, for as long as the component is mounted. Installed
 * while rendering, not in an effect: Ink writes the first frame (and any static output) before
 * effects run, and the static output must be seen to be found again in a clear.
 */
export function useKeepScrollback(): void {
  const { stdout } = useStdout();
  const undo = useRef<(() => void) | null>(null);
  undo.current ??= keepScrollback(stdout);
  useEffect(
    () => () => {
      undo.current?.();
      undo.current = null;
    },
    [],
  );
}
