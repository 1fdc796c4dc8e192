import { render } from 'ink';
import { ChatApp } from './ChatApp.js';
import type { ChatDeps } from './session.js';

/** Draws the chat until the user leaves. Ctrl+C is the chat's own key, not Ink's exit. */
export async function launchChat(deps: Omit<ChatDeps, 'exit'>): Promise<void> {
  let exit: () => void = () => {};
  const instance = render(<ChatApp {...deps} exit={() => exit()} />, { exitOnCtrlC: false, patchConsole: false });
  exit = () => instance.unmount();
  await instance.waitUntilExit();
}
