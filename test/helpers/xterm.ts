import { EventEmitter } from 'node:events';
import xterm from '@xterm/headless';

/**
 * A terminal nobody here wrote (xterm.js, headless) for what a program prints: its bytes go in as
 * a terminal would get them, and the test reads back what a person sees — the screen and the
 * scrollback above it.
 */
export function headlessTerminal(columns: number, rows: number) {
  // convertEol: a tty turns "\n" into "\r\n" on its way out (ONLCR), as programs expect.
  const terminal = new xterm.Terminal({ cols: columns, rows, scrollback: 100_000, allowProposedApi: true, convertEol: true });
  let bytes = 0;
  const raw: string[] = [];
  let pending = Promise.resolve();

  // The size the terminal has (what an ioctl on a tty reads), ahead of what the program has heard.
  let size: [number, number] = [columns, rows];
  const stdout = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns,
    rows,
    // As node's tty stream: getWindowSize() reads the size last heard (its SIGWINCH handled); the
    // tty's handle asks the terminal, and returns an error code.
    getWindowSize: (): [number, number] => [stdout.columns, stdout.rows],
    _handle: {
      getWindowSize(out: [number, number]): number {
        [out[0], out[1]] = size;
        return 0;
      },
    },
    write(data: string | Uint8Array) {
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      bytes += Buffer.byteLength(text);
      raw.push(text);
      pending = pending.then(() => new Promise<void>((resolve) => terminal.write(text, resolve)));
      return true;
    },
  });

  /** The terminal changes size after what was written so far, and the program has not heard yet (its SIGWINCH is on its way). */
  const resizeUnheard = (newColumns: number, newRows: number): Promise<void> => {
    pending = pending.then(() => terminal.resize(newColumns, newRows));
    size = [newColumns, newRows];
    return pending;
  };
  /** The program hears of the terminal's size (its SIGWINCH handled). */
  const hear = () => {
    [stdout.columns, stdout.rows] = size;
    stdout.emit('resize');
  };

  return {
    stdout,
    /** Bytes written so far. */
    bytes: () => bytes,
    /** Everything written, as written. */
    raw: () => raw.join(''),
    /** Waits until the terminal has taken in every write. */
    settled: () => pending,
    /** Scrollback then screen, one string a row, right-trimmed; trailing empty rows dropped. */
    async lines(): Promise<string[]> {
      await pending;
      const buffer = terminal.buffer.active;
      const out: string[] = [];
      for (let i = 0; i < buffer.length; i++) out.push(buffer.getLine(i)?.translateToString(true).trimEnd() ?? '');
      while (out.length > 0 && out.at(-1) === '') out.pop();
      return out;
    },
    /** What is written straight to the terminal, as a shell would before the program starts. */
    print(text: string) {
      stdout.write(text);
    },
    /**
     * The terminal changes size after what was written so far, before anything written next, and
     * the program hears of it at once (as a SIGWINCH handled before its next frame). Resolves once
     * the terminal has resized.
     */
    resize(newColumns: number, newRows: number): Promise<void> {
      const resized = resizeUnheard(newColumns, newRows);
      hear();
      return resized;
    },
    resizeUnheard,
    hear,
    dispose: () => terminal.dispose(),
  };
}

export type HeadlessTerminal = ReturnType<typeof headlessTerminal>;

/** Keys for a program reading raw stdin (as ink does). */
export class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  write(data: string) {
    this.queue.push(data);
    this.emit('readable');
  }
  read = () => this.queue.shift() ?? null;
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}
