import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, removeTempDirs, tempDir } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `svc chat` in a real terminal: tmux runs it in a detached session on its own socket (never the
 * user's tmux server), keys go in with send-keys, and the screen comes back with capture-pane.
 */

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('test/tui/terminal.test.ts: tmux is not installed; the terminal test of svc chat is skipped.');

const id = `svc-chat-test-${process.pid}-${Date.now().toString(36)}`;
/** tmux on a socket of this test's own: `-L` names it, `-f /dev/null` ignores the user's config. */
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', id, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The visible screen, as text. */
const screen = () => tmux('capture-pane', '-p', '-t', id).stdout;

/** Polls until `done()` holds: at most `tries` times, 50 ms apart. */
async function poll(what: string, done: () => boolean, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
}

const showing = (text: string) => poll(`the screen to show ${JSON.stringify(text)}`, () => screen().includes(text));

describe.skipIf(!hasTmux)('svc chat in a terminal (tmux)', () => {
  let server: TestServer;
  let exitFile: string;

  beforeAll(async () => {
    server = await startTestServer();
    const home = tempDir();
    exitFile = join(home, 'exit-code');
    // The shell writes the chat's exit code where the test can read it once the session is gone.
    const command = `${quote(process.execPath)} ${quote(BIN)} chat --api-url ${server.url}; echo $? > ${quote(exitFile)}`;
    const started = spawnSync('tmux', ['-L', id, '-f', '/dev/null', 'new-session', '-d', '-s', id, '-x', '100', '-y', '30', command], {
      env: { ...childEnv(home, { SVC_API_KEY: server.liveKey }), TERM: 'xterm-256color' },
      encoding: 'utf8',
    });
    if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  });

  afterAll(async () => {
    tmux('kill-session', '-t', id);
    tmux('kill-server');
    await server?.close();
    removeTempDirs();
  });

  it('draws the prompt, answers a question, and leaves on Ctrl+D', async () => {
    await showing('Ask anything');
    expect(screen()).toContain('local/echo');

    tmux('send-keys', '-t', id, '-l', 'What is in a terminal?');
    await showing('› What is in a terminal?');
    tmux('send-keys', '-t', id, 'Enter');
    await poll('the answer, the prompt back, and what it cost', () =>
      /Echo — you said:\s*What is in a terminal\?[\s\S]*Ask anything[\s\S]*\d+ tokens/.test(screen()),
    );

    tmux('send-keys', '-t', id, 'C-d');
    await poll('the session to end', () => tmux('has-session', '-t', id).status !== 0);
    await poll('the exit code', () => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n'));
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0');
  });
});
