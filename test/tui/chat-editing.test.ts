import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, startTerminal, type TerminalSession } from '../helpers/tmux.js';

/**
 * `svc chat` in a real terminal (tmux) for what a user test found (issue 26): Ctrl+R froze the
 * chat for good on a large history entry, a big paste became many placeholders, ↑ in a draft of
 * several lines jumped to the history, and there was no $EDITOR nor a /resume picker.
 */

if (!hasTmux) console.warn('test/tui/chat-editing.test.ts: tmux is not installed; these terminal tests of svc chat are skipped.');

/** Each test starts `svc` (and a server's worth of chat) in a real terminal, several times for some. */
const TERMINAL_TEST_MS = 60_000;

describe.skipIf(!hasTmux)('svc chat editing in a terminal (tmux)', () => {
  let server: TestServer;
  let terminal: TerminalSession | null = null;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterEach(() => {
    terminal?.close();
    terminal = null;
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  /** `svc chat` against the test server, with `home` as SVC_HOME (a fresh one unless given). */
  async function chat(options: { home?: string; env?: Record<string, string> } = {}) {
    const home = options.home ?? tempDir();
    terminal = startTerminal('chat-editing', ['chat', '--api-url', server.url], { columns: 100, rows: 30 }, {
      SVC_API_KEY: server.liveKey,
      SVC_HOME: home,
      HOME: home,
      ...options.env,
    });
    await terminal.showing('Ask anything');
    return { session: terminal, home };
  }

  /** The composer's rows: from the last line starting with the prompt to the status line. */
  const composer = (screen: string) => {
    const lines = screen.trimEnd().split('\n');
    const start = lines.findLastIndex((line) => line.startsWith('› '));
    return lines.slice(start, -1).join('\n').trimEnd();
  };

  it('Ctrl+R with a 100 KB entry in the history opens at once, shows its start on one row, and Ctrl+C gets out', async () => {
    const home = tempDir();
    const large = `here is my log:\n${Array.from({ length: 2100 }, (_, i) => `log line ${i} with some more text in it ok`).join('\n')}\nwhy does it fail?`;
    expect(large.length).toBeGreaterThan(85_000);
    const entries = [...Array.from({ length: 50 }, (_, i) => `earlier question ${i}`), large];
    writeFileSync(join(home, 'chat_history.jsonl'), entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), { mode: 0o600 });
    const { session } = await chat({ home });
    session.send('C-r');
    await session.showing('History · type to filter');
    const rows = session.screen().split('\n');
    expect(rows.find((row) => row.startsWith('› here is my log:'))).toMatch(/^› here is my log: ⏎ log line 0 with some more text in it ok ⏎ log line 1 .*…$/);
    session.send('why does it', { literal: true });
    await session.poll('the filter to keep the large entry', () => /History · type to filter.*why does it/.test(session.screen()));
    expect(session.screen()).toMatch(/^› here is my log:/m);
    session.send('Enter');
    await session.poll('the pick, collapsed', () => composer(session.screen()) === `› [Pasted text #1: ${large.split('\n').length} lines]`);
    session.send('C-c');
    await session.poll('the prompt cleared', () => composer(session.screen()).includes('Ask anything'));
    session.send('C-r');
    await session.showing('History · type to filter');
    session.send('C-c');
    await session.poll('the list closed', () => !session.screen().includes('History · type to filter'));
    session.send('C-d');
    expect(await session.exitCode()).toBe(0);
  }, TERMINAL_TEST_MS);

  it('a paste of 1,200 lines is one placeholder; a pasted question is sent whole', async () => {
    const { session } = await chat();
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `pasted line ${i}`).join('\n');
    session.send('look: ', { literal: true });
    session.paste(lines(1200));
    await session.poll('one placeholder', () => composer(session.screen()) === '› look: [Pasted text #1: 1200 lines]');
    session.send('C-c');
    await session.poll('the prompt cleared', () => composer(session.screen()).includes('Ask anything'));
    session.paste(lines(200));
    await session.poll('the second paste', () => composer(session.screen()) === '› [Pasted text #1: 200 lines]');
    session.send('Enter');
    await session.poll('the echo of the whole paste', () => /pasted line 199\b[\s\S]*Ask anything[\s\S]*\d+ tokens/.test(session.screen()));
  }, TERMINAL_TEST_MS);

  it('↑ and ↓ move between the lines of a draft; the history from its first line', async () => {
    const { session } = await chat();
    session.send('an earlier question', { literal: true });
    session.send('Enter');
    await session.poll('the answer', () => /you said:\s*an earlier question[\s\S]*Ask anything/.test(session.screen()));
    // Each key is sent once the screen shows the last: a busy machine may otherwise deliver text and
    // the control key after it in one read, which is no longer how a person types.
    session.send('line one', { literal: true });
    await session.poll('the first line', () => composer(session.screen()) === '› line one');
    session.send('M-Enter');
    session.send('line two', { literal: true });
    await session.poll('the second line', () => composer(session.screen()) === '› line one\n  line two');
    session.send('Up');
    session.send('X', { literal: true });
    await session.poll('X on the first line', () => composer(session.screen()) === '› line oneX\n  line two');
    session.send('Up');
    await session.poll('the history', () => composer(session.screen()) === '› an earlier question');
    session.send('Down');
    await session.poll('the draft back', () => composer(session.screen()) === '› line oneX\n  line two');
    // Words and kills: Alt+B back a word, Ctrl+K the rest of the line, Ctrl+A its start.
    session.send('M-b');
    session.send('C-k');
    session.send('C-a');
    session.send('>', { literal: true });
    await session.poll('the edits', () => composer(session.screen()) === '› line oneX\n  >line');
  }, TERMINAL_TEST_MS);

  it('Ctrl+G hands the terminal to $VISUAL and takes back the draft it saved; Ctrl+C in the editor is the editor\'s', async () => {
    const dir = tempDir();
    const editor = join(dir, 'fake-editor');
    // Like a real editor: the alternate screen (left on Ctrl+C too), a line read in the terminal's own mode.
    writeFileSync(
      editor,
      [
        '#!/bin/sh',
        "trap \"printf '\\033[?1049l'; exit 130\" INT",
        "printf '\\033[?1049hfake editor: type a line\\n'",
        'IFS= read -r line || exit 1',
        "printf '\\033[?1049l'",
        `cp "$1" '${dir}/given'`,
        'printf \'\\n%s\\n\' "$line" >> "$1"',
      ].join('\n'),
    );
    chmodSync(editor, 0o755);
    const { session } = await chat({ env: { VISUAL: editor } });
    session.send('my draft', { literal: true });
    await session.poll('the draft', () => composer(session.screen()) === '› my draft');
    session.send('C-g');
    await session.showing('fake editor: type a line');
    session.send('typed in the editor', { literal: true });
    session.send('Enter');
    await session.poll('the edited draft', () => composer(session.screen()) === '› my draft\n  typed in the editor');
    expect(readFileSync(join(dir, 'given'), 'utf8')).toBe('my draft');
    session.send('C-x');
    session.send('C-e');
    await session.showing('fake editor: type a line');
    session.send('C-c');
    await session.showing('ended with 130; the draft is as it was');
    expect(composer(session.screen())).toBe('› my draft\n  typed in the editor');
    session.send('Enter');
    await session.poll('the answer', () => /you said:\s*my draft\s+typed in the editor/.test(session.screen()));
  }, TERMINAL_TEST_MS);

  it('/resume without an id picks from the recent conversations', async () => {
    const first = await chat();
    first.session.send('remember the tmux conversation', { literal: true });
    first.session.send('Enter');
    await first.session.poll('the answer', () => /you said:\s*remember the tmux conversation[\s\S]*Ask anything/.test(first.session.screen()));
    first.session.send('C-d');
    expect(await first.session.exitCode()).toBe(0);
    first.session.close();

    const { session } = await chat({ home: first.home });
    session.send('/resume', { literal: true });
    session.send('Enter');
    await session.showing('Resume · type to filter');
    expect(session.screen()).toMatch(/^› \d{4}-\d\d-\d\d \d\d:\d\d {2}remember the tmux conversation$/m);
    session.send('Enter');
    await session.poll('the conversation back', () => /Resumed conversation conv_\w+\.[\s\S]*remember the tmux conversation/.test(session.screen()));
  }, TERMINAL_TEST_MS);
});
