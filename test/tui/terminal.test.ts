import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, startTerminal, type TerminalSession } from '../helpers/tmux.js';

/** `svc chat` in a real terminal (tmux, see test/helpers/tmux.ts). */

if (!hasTmux) console.warn('test/tui/terminal.test.ts: tmux is not installed; the terminal test of svc chat is skipped.');

describe.skipIf(!hasTmux)('svc chat in a terminal (tmux)', () => {
  let server: TestServer;
  let terminal: TerminalSession;

  beforeAll(async () => {
    server = await startTestServer();
    terminal = startTerminal('chat', ['chat', '--api-url', server.url], { columns: 100, rows: 30 }, { SVC_API_KEY: server.liveKey });
  });

  afterAll(async () => {
    terminal?.close();
    await server?.close();
    removeTempDirs();
  });

  it('draws the prompt, answers a question, and leaves on Ctrl+D', async () => {
    await terminal.showing('Ask anything');
    expect(terminal.screen()).toContain('local/echo');

    terminal.send('What is in a terminal?', { literal: true });
    await terminal.showing('› What is in a terminal?');
    terminal.send('Enter');
    await terminal.poll('the answer, the prompt back, and what it cost', () =>
      /Echo — you said:\s*What is in a terminal\?[\s\S]*Ask anything[\s\S]*\d+ tokens/.test(terminal.screen()),
    );

    // A code block in the answer is highlighted (highlight.js loads on the first one).
    terminal.send('```js', { literal: true });
    terminal.send('M-Enter');
    terminal.send('const answer = 42', { literal: true });
    terminal.send('M-Enter');
    terminal.send('```', { literal: true });
    terminal.send('Enter');
    await terminal.poll('the echoed code block', () => (terminal.screen().match(/const answer = 42/g) ?? []).length >= 2);
    const codeLines = terminal.screenWithColours().split('\n').filter((line) => line.includes('answer') && line.includes('42'));
    // Highlighted, not just styled as a whole: the keyword and the number get colours of their own.
    expect(codeLines.some((line) => /\u001b\[[0-9;]*m\s*const\b.*\u001b\[[0-9;]*m42/.test(line)), JSON.stringify(codeLines)).toBe(true);

    terminal.send('C-d');
    expect(await terminal.exitCode()).toBe(0);
  });
});
