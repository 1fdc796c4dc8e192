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
    // this took longer than a single screen's 10 s wait, so the start gets 30 s.
    await Promise.all(terminals.map((terminal) => terminal.poll('the chat to start', () => terminal.screen().includes('Ask anything'), 600)));
    // Two turns each, typed in all three before any answer is read.
    for (const turn of [1, 2]) {
      terminals.forEach((terminal, i) => {
        terminal.send(`${names[i]} turn ${turn} says hello`, { literal: true });
        terminal.send('Enter');
      });
      await Promise.all(
        terminals.map((terminal, i) =>
          terminal.poll(`${names[i]}'s answer ${turn}`, () => new RegExp(`you said:\\s*${names[i]} turn ${turn} says hello[\\s\\S]*Ask anything`).test(terminal.screen()), 400),
        ),
      );
    }
    for (const terminal of terminals) expect(terminal.screen()).not.toMatch(/locked|SQLITE_BUSY|✖/);
    for (const terminal of terminals) terminal.send('C-d');
    for (const terminal of terminals) expect(await terminal.exitCode()).toBe(0);

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
  }, 120_000);
});
