import { render } from 'ink';
import { ChatApp } from './ChatApp.js';
import type { ChatDeps } from './session.js';

/**
 * How the chat is drawn. Ctrl+C is the chat's own key, not Ink's exit. Incremental: a frame
 * rewrites only the rows that changed, so a streaming answer costs its new text, not its whole
 * live region again at every frame.
 */
export const CHAT_RENDER_OPTIONS = { exitOnCtrlC: false, patchConsole: false } as const;

/** Draws the chat until the user leaves. */
export async function launchChat(deps: Omit<ChatDeps, 'exit'>): Promise<void> {
  let exit: () => void = () => {};
  const instance = render(<ChatApp {...deps} exit={() => exit()} />, CHAT_RENDER_OPTIONS);
  exit = () => instance.unmount();
  await instance.waitUntilExit();
}
