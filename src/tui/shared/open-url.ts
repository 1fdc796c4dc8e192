import { spawn } from 'node:child_process';

/** Opens a URL with the desktop's default app (a browser); rejects when there is no opener. */
export type OpenUrl = (url: string) => Promise<void>;

export interface Opener {
  command: string;
  args: string[];
}

/** cmd.exe reads these characters itself unless they are escaped with ^. */
const cmdEscape = (text: string) => text.replace(/[&|<>^()%!"]/g, '^$&');

/** The platform's opener: `open` on macOS, `start` (through cmd) on Windows, `xdg-open` elsewhere. */
export function openerFor(url: string, platform: NodeJS.Platform = process.platform): Opener {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'cmd', args: ['/d', '/s', '/c', `start "" ${cmdEscape(url)}`] };
  return { command: 'xdg-open', args: [url] };
}

/** Starts the opener detached (it must outlive nothing and print nothing into the screen). */
export const openUrl: OpenUrl = (url) =>
  new Promise((resolve, reject) => {
    const { command, args } = openerFor(url);
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: process.platform === 'win32' });
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
