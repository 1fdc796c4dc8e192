/** A tty's handle (node's TTY wrap), whose getWindowSize asks the terminal (an ioctl) and returns an error code. */
interface TtyHandle {
  getWindowSize?(size: [number, number]): number;
}

/**
 * The terminal's width now. Node's `columns` (and its `getWindowSize()`, which reads them) change
 * only once the SIGWINCH is handled; the tty's own handle asks the terminal. Where there is no
 * tty (a pipe, a test's stream), `columns`.
 */
export function terminalWidthNow(stdout: NodeJS.WriteStream): number {
  const handle = (stdout as unknown as { _handle?: TtyHandle })._handle;
  const size: [number, number] = [0, 0];
  if (typeof handle?.getWindowSize === 'function' && handle.getWindowSize(size) === 0 && size[0] > 0) return size[0];
  return stdout.columns;
}
