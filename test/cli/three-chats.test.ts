import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { hasTmux, startTerminal, type TerminalSession } from '../helpers/tmux.js';

/**
 * Three `svc chat` screens opened at once on one fresh home, as the issue found them: they start
 * one background server between them, none prints "database is locked", every answer arrives
 * whole, and the shared memory holds every line.
 */

const home = tempDir();
/**
 * Polls of the screen are counted in tries 50 ms apart: a wait's deadline, generous since three
 * chats and their server share a loaded 2-core CI machine with other tests (a wait ends as soon
 * as its condition holds).
 */
const seconds = (s: number) => s * 20;
const terminals: TerminalSession[] = [];
afterAll(async () => {
  for (const terminal of terminals) terminal.close();
  await runSvc(['server', 'stop'], { home });
  removeTempDirs();
});

describe.skipIf(!hasTmux)('three chats side by side (tmux)', () => {
  it('answer in full, share one server, and never lock each other out', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const names = ['alpha', 'bravo', 'charlie'];
    for (const name of names) {
      terminals.push(startTerminal(`three-${name}`, ['chat', '--model', 'local/echo'], { columns: 100, rows: 30 }, { SVC_HOME: home, HOME: home, SVC_API_URL: url }));
    }
    // Three chats and the background server they start, at once: on a loaded 2-core CI machine
    // this took longer than a single screen's 10 s wait, so the start gets 90 s.
    // Ready means reading keys, not just drawn: the first frame (the prompt) is drawn before the
    // effects that put the terminal in raw mode have run, and a line typed in between stays in the
    // composer (the tty's Enter comes in as Ctrl+J). The balance in the status line is read by an
    // effect of that same first commit, so once it shows, the chat takes keys.
    await Promise.all(
      terminals.map((terminal) =>
        terminal.poll('the chat to start and read keys', () => /Ask anything[\s\S]*balance \d/.test(terminal.screen()), seconds(90)),
      ),
    );
    // Two turns each, typed in all three before any answer is read.
    for (const turn of [1, 2]) {
      terminals.forEach((terminal, i) => {
        terminal.send(`${names[i]} turn ${turn} says hello`, { literal: true });
        terminal.send('Enter');
      });
      await Promise.all(
        terminals.map((terminal, i) =>
          terminal.poll(`${names[i]}'s answer ${turn}`, () => new RegExp(`you said:\\s*${names[i]} turn ${turn} says hello[\\s\\S]*Ask anything`).test(terminal.screen()), seconds(60)),
        ),
      );
    }
    for (const terminal of terminals) expect(terminal.screen()).not.toMatch(/locked|SQLITE_BUSY|✖/);
    for (const terminal of terminals) terminal.send('C-d');
    for (const terminal of terminals) expect(await terminal.exitCode(seconds(30))).toBe(0);

    const db = new Database(join(home, 'memory.db'), { readonly: true });
    try {
      const messages = db.prepare('SELECT role, content FROM messages').all() as Array<{ role: string; content: string }>;
      for (const name of names) {
        for (const turn of [1, 2]) {
          const said = `${name} turn ${turn} says hello`;
          expect(messages.filter((m) => m.role === 'user' && m.content === said)).toHaveLength(1);
          expect(messages.filter((m) => m.role === 'assistant' && m.content.includes(said))).toHaveLength(1);
        }
      }
      expect(db.prepare('SELECT count(*) AS n FROM conversations').get()).toEqual({ n: 3 });
    } finally {
      db.close();
    }
    // The server they started outlives them.
    const status = await runSvc(['server', 'status'], { home });
    expect(status.code, status.stdout + status.stderr).toBe(0);
  }, 360_000);
});
