import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, childEnv, tempDir } from './cli.js';

/**
 * `svc` in a real terminal: tmux runs it in a detached session on a socket of the test's own
 * (`-L`; `-f /dev/null` ignores the user's config, and the user's tmux server is never touched),
 * keys go in with send-keys, the screen comes back with capture-pane.
 */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface TerminalSession {
  /** The visible screen, as text. */
  screen(): string;
  /** The scrollback and the screen, as text, one line a row as tmux holds them (rewrapped on a resize). */
  scrollback(): string;
  /** Changes the terminal's size, as a user dragging its window does: tmux rewraps its rows and signals the program. */
  resize(columns: number, rows: number): void;
  /** The visible screen with its colours (SGR escape sequences). */
  screenWithColours(): string;
  /** Keys as tmux names them (`Enter`, `C-d`), or literal text with `literal: true`. */
  send(keys: string, options?: { literal?: boolean }): void;
  /** Pastes `text` as a terminal does: bracketed when the program asked for it, line breaks as CR. */
  paste(text: string): void;
  /** Polls until `done()` holds: at most `tries` times (300 unless told: 15 s and more), 50 ms apart. */
  poll(what: string, done: () => boolean, tries?: number): Promise<void>;
  showing(text: string): Promise<void>;
  /** Waits for the program to end (polling at most `tries` times, 50 ms apart) and returns its exit code. */
  exitCode(tries?: number): Promise<number>;
  close(): void;
}

/** Runs `svc <args>` in a new terminal of `columns` × `rows`, with `env` beside a throwaway SVC_HOME. */
export function startTerminal(name: string, args: string[], size: { columns: number; rows: number }, env: Record<string, string>): TerminalSession {
  return startProgramInTerminal(name, [process.execPath, BIN, ...args], size, env);
}

/** Runs the program `argv` (its path, then its arguments) as startTerminal runs svc. */
export function startProgramInTerminal(name: string, argv: string[], size: { columns: number; rows: number }, env: Record<string, string>): TerminalSession {
  const id = `svc-${name}-test-${process.pid}-${Date.now().toString(36)}`;
  const tmux = (...rest: string[]) => spawnSync('tmux', ['-L', id, '-f', '/dev/null', ...rest], { encoding: 'utf8' });
  const home = tempDir();
  const exitFile = join(home, 'exit-code');
  // The shell writes the program's exit code where the test can read it once the session is gone.
  const command = `${argv.map(quote).join(' ')}; echo $? > ${quote(exitFile)}`;
  const started = spawnSync('tmux', ['-L', id, '-f', '/dev/null', 'new-session', '-d', '-s', id, '-x', String(size.columns), '-y', String(size.rows), command], {
    env: { ...childEnv(home, env), TERM: 'xterm-256color' },
    encoding: 'utf8',
  });
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);

  const screen = () => tmux('capture-pane', '-p', '-t', id).stdout;
  async function poll(what: string, done: () => boolean, tries = 300): Promise<void> {
    for (let i = 0; i < tries; i++) {
      if (done()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
  }
  return {
    screen,
    screenWithColours: () => tmux('capture-pane', '-p', '-e', '-t', id).stdout,
    // -J: rows tmux wrapped are joined back into the line they are, as a terminal's copy would.
    scrollback: () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', id).stdout,
    resize: (columns, rows) => void tmux('resize-window', '-t', id, '-x', String(columns), '-y', String(rows)),
    send: (keys, options = {}) => void tmux('send-keys', '-t', id, ...(options.literal ? ['-l'] : []), keys),
    paste(text) {
      const file = join(home, 'paste-buffer');
      writeFileSync(file, text);
      tmux('load-buffer', '-b', 'test-paste', file);
      tmux('paste-buffer', '-p', '-d', '-b', 'test-paste', '-t', id);
    },
    poll,
    showing: (text) => poll(`the screen to show ${JSON.stringify(text)}`, () => screen().includes(text)),
    async exitCode(tries) {
      await poll('the session to end', () => tmux('has-session', '-t', id).status !== 0, tries);
      await poll('the exit code', () => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n'), tries);
      return Number(readFileSync(exitFile, 'utf8').trim());
    },
    close() {
      tmux('kill-session', '-t', id);
      tmux('kill-server');
    },
  };
}
