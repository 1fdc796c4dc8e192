import { render } from 'ink';
import { ChatApp } from './ChatApp.js';
import type { ChatDeps } from './session.js';

/**
 * How the chat is drawn. Ctrl+C is the chat's own key, not Ink's exit. (Ink's incremental
 * rendering would write less, but leaves stale rows behind when <Static> output is written:
 * test/tui/scrollback.test.tsx catches it.)
 */
export const CHAT_RENDER_OPTIONS = { exitOnCtrlC: false, patchConsole: false } as const;

/** How often a streaming answer is redrawn: each frame rewrites the live rows (npm run bench chat-output). */
export const CHAT_REDRAW_MS = 60;

/** Draws the chat until the user leaves. */
export async function launchChat(deps: Omit<ChatDeps, 'exit'>): Promise<void> {
  let exit: () => void = () => {};
  const instance = render(<ChatApp {...deps} exit={() => exit()} />, CHAT_RENDER_OPTIONS);
  exit = () => instance.unmount();
  await instance.waitUntilExit();
}
