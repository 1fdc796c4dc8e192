import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Ink draws frames only where it believes a person watches: not "in CI".
vi.hoisted(() => {
  process.env.CI = 'false';
  delete process.env.CONTINUOUS_INTEGRATION;
});

import { Box, render, Static, Text } from 'ink';
import { FakeStdin, headlessTerminal, type HeadlessTerminal } from '../../../test/helpers/xterm.js';
import { useKeepScrollback } from './keep-scrollback.js';

/** Printed lines above a live region that redraws, as the chat is drawn. */
function Screen({ printed, live }: { printed: string[]; live: string[] }) {
  return (
    <Box flexDirection="column">
      <Static items={printed}>{(line) => <Text key={line}>{line}</Text>}</Static>
      <Text>{live.join('\n')}</Text>
    </Box>
  );
}

function GuardedScreen(props: { printed: string[]; live: string[] }) {
  useKeepScrollback();
  return <Screen {...props} />;
}

let terminal: HeadlessTerminal | null = null;
afterEach(() => terminal?.dispose());

/** Prints 30 lines, shows `live`, resizes the terminal to `to`, then shows one short live line and ends; `guarded`: with useKeepScrollback. */
async function resizedUnder(live: string[], from: [number, number], to: [number, number], guarded = true) {
  terminal = headlessTerminal(...from);
  const printed = Array.from({ length: 30 }, (_, i) => `printed line ${i + 1}`);
  const options = { stdout: terminal.stdout as never, stdin: new FakeStdin() as never, stderr: new EventEmitter() as never, patchConsole: false, exitOnCtrlC: false };
  const Drawn = guarded ? GuardedScreen : Screen;
  const app = render(<Drawn printed={printed.slice(0, 10)} live={live} />, options);
  app.rerender(<Drawn printed={printed} live={live} />);
  await terminal.settled();
  await terminal.resize(...to);
  app.rerender(<Drawn printed={printed} live={['the end']} />);
  app.unmount();
  return { lines: await terminal.lines(), raw: terminal.raw(), printed };
}

describe('keepScrollback: Ink redraws its live rows across a resize, and the scrollback keeps every line once', () => {
  it('narrowed under live rows wider than the new width: no fragment of them stays', async () => {
    const live = Array.from({ length: 4 }, (_, i) => `live ${i} ${'x'.repeat(80)}`);
    const { lines, printed } = await resizedUnder(live, [100, 20], [50, 20]);
    expect(lines).toEqual([...printed, 'the end']);
    // Without it, Ink's erase falls short of the rewrapped rows.
    expect((await resizedUnder(live, [100, 20], [50, 20], false)).lines).not.toEqual([...printed, 'the end']);
  });

  // Under load, a streaming answer draws frame after frame at its old width before its SIGWINCH is
  // handled: each is wrapped by the narrower terminal, and each must be erased as it really stands.
  it.each([1, 2, 3])('narrowed, and %i frames drawn before the program heard of it (a spinner tick, deltas, while its SIGWINCH is on its way): no fragment stays', async (frames) => {
    const live = Array.from({ length: 4 }, (_, i) => `live ${i} ${'x'.repeat(80)}`);
    const early = async (guarded: boolean) => {
      terminal = headlessTerminal(100, 20);
      const printed = Array.from({ length: 30 }, (_, i) => `printed line ${i + 1}`);
      const options = { stdout: terminal.stdout as never, stdin: new FakeStdin() as never, stderr: new EventEmitter() as never, patchConsole: false, exitOnCtrlC: false };
      const Drawn = guarded ? GuardedScreen : Screen;
      const app = render(<Drawn printed={printed} live={live} />, options);
      await terminal.settled();
      await terminal.resizeUnheard(50, 20);
      for (let frame = 1; frame <= frames; frame++) app.rerender(<Drawn printed={printed} live={[...live.slice(0, 3), `live 3 moved on ${frame} ${'y'.repeat(70)}`]} />);
      terminal.hear();
      app.rerender(<Drawn printed={printed} live={['the end']} />);
      app.unmount();
      return { lines: await terminal.lines(), printed };
    };
    const { lines, printed } = await early(true);
    expect(lines).toEqual([...printed, 'the end']);
    terminal?.dispose();
    expect((await early(false)).lines).not.toEqual([...printed, 'the end']);
  });

  it('a height shrink under live rows taller than the new height: no clear, every printed line once', async () => {
    const live = Array.from({ length: 15 }, (_, i) => `live ${i}`);
    const { lines, raw, printed } = await resizedUnder(live, [60, 20], [60, 8]);
    expect(raw).not.toContain('\u001b[2J');
    expect(raw).not.toContain('\u001b[3J');
    // The live rows the terminal itself pushed into the scrollback (12 rows fewer: 4 printed, 8
    // live) stay there, out of reach; nothing else is left of them.
    expect(lines).toEqual([...printed, ...live.slice(0, 8), 'the end']);
    // Without it, Ink clears the screen and the scrollback.
    expect((await resizedUnder(live, [60, 20], [60, 8], false)).raw).toContain('\u001b[3J');
  });
});
