import { EventEmitter } from 'node:events';
import type { ChatSettings, InputHistory } from '../../../src/tui/chat/session.js';

/** What a benchmark's chat talks to: a test server's URL and key. */
export interface ChatServer {
  url: string;
  liveKey: string;
}

/**
 * `svc chat` drawn by Ink as in production (its render options, its redraw pace) into a headless
 * terminal, keys through a fake stdin. Every write to the terminal goes through `onWrite`
 * listeners first, for benchmarks that count or wait for frames. Loaded on demand: only the
 * chat benchmarks pay for Ink.
 */
export async function chatOnScreen(options: {
  server: ChatServer;
  columns: number;
  rows: number;
  settings: Pick<ChatSettings, 'model'> & Partial<ChatSettings>;
  history?: InputHistory;
}) {
  // Ink draws frames only where it believes a person watches.
  process.env.CI = 'false';
  const [{ render }, React, { ChatApp }, { CHAT_RENDER_OPTIONS, CHAT_REDRAW_MS }, { createClient }, xterm] = await Promise.all([
    import('ink'),
    import('react'),
    import('../../../src/tui/chat/ChatApp.js'),
    import('../../../src/tui/chat/launch.js'),
    import('../../../src/client/client.js'),
    import('../../helpers/xterm.js'),
  ]);
  const terminal = xterm.headlessTerminal(options.columns, options.rows);
  const listeners: ((text: string) => void)[] = [];
  const write = terminal.stdout.write.bind(terminal.stdout);
  terminal.stdout.write = (data: string | Uint8Array) => {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    for (const listener of listeners) listener(text);
    return write(data);
  };
  const stdin = new xterm.FakeStdin();
  const settings: ChatSettings = {
    toolsEnabled: false,
    maxToolRounds: 1,
    contextMessages: 40,
    maxFileBytes: 65_536,
    liveRows: 0,
    redrawMs: CHAT_REDRAW_MS,
    ...options.settings,
  };
  const instance = render(
    React.createElement(ChatApp, {
      client: createClient({ baseUrl: options.server.url, apiKey: options.server.liveKey }),
      memory: null,
      settings,
      ...(options.history ? { history: options.history } : {}),
      exit: () => {},
      writeRaw: () => {},
    }),
    { ...CHAT_RENDER_OPTIONS, stdout: terminal.stdout as never, stdin: stdin as never, stderr: new EventEmitter() as never },
  );
  return {
    terminal,
    stdin,
    onWrite: (listener: (text: string) => void) => void listeners.push(listener),
    /** Ink's last frame is written as it unmounts: read the terminal after this. */
    unmount: () => instance.unmount(),
  };
}
