import { render } from 'ink';
import { osc52 } from '../shared/clipboard.js';
import { DashboardApp } from './DashboardApp.js';
import type { DashboardDeps } from './session.js';

/** The terminal's alternate screen: the dashboard draws there and leaves the scrollback as it was. */
const ENTER_ALTERNATE = '\u001b[?1049h\u001b[H';
const LEAVE_ALTERNATE = '\u001b[?1049l';

/**
 * Draws the dashboard until the user quits. Ctrl+C is the dashboard's own key. The addresses it
 * showed are printed after it closes, where the terminal keeps them.
 */
export async function launchDashboard(deps: Omit<DashboardDeps, 'exit' | 'keep' | 'copy'>, stdout: NodeJS.WriteStream = process.stdout): Promise<void> {
  let exit: () => void = () => {};
  const kept = new Set<string>();
  stdout.write(ENTER_ALTERNATE);
  const restore = () => stdout.write(LEAVE_ALTERNATE);
  // A crash must not leave the terminal on the alternate screen.
  process.once('exit', restore);
  try {
    const instance = render(<DashboardApp {...deps} exit={() => exit()} keep={(line) => kept.add(line)} copy={(text) => stdout.write(osc52(text))} />, { exitOnCtrlC: false, patchConsole: false, stdout });
    exit = () => instance.unmount();
    await instance.waitUntilExit();
  } finally {
    process.off('exit', restore);
    restore();
    for (const line of kept) stdout.write(`${line}\n`);
  }
}
