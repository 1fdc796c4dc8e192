import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientEnvironment } from '../../client/environment.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './paste.js';

const SHOW_CURSOR = '\u001b[?25h';
const HIDE_CURSOR = '\u001b[?25l';

/** The editor the user chose: $VISUAL, then $EDITOR, then vi (as git chooses). */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  const { VISUAL, EDITOR } = clientEnvironment(env);
  return VISUAL?.trim() || EDITOR?.trim() || 'vi';
}

export type ExternalEdit = { text: string } | { error: string };

/**
 * Ctrl+G: the draft in the user's editor, and what they saved back. The caller has released the
 * terminal (raw mode off, stdin not read: ChatApp turns its input hook off first); this runs the
 * editor synchronously, so nothing of the chat runs or draws while it has the screen, and a
 * Ctrl+C typed in it is the editor's, not a signal that ends the chat.
 *
 * The draft goes to a file in a directory of its own, both readable by the owner only (a draft
 * may hold anything), removed afterwards.
 */
export function editInExternalEditor(draft: string, writeRaw: (text: string) => void, env: NodeJS.ProcessEnv = process.env): ExternalEdit {
  const dir = mkdtempSync(join(tmpdir(), 'svc-draft-'));
  const file = join(dir, 'draft.md');
  const command = editorCommand(env);
  const ignoreInterrupt = () => {};
  process.on('SIGINT', ignoreInterrupt);
  writeRaw(BRACKETED_PASTE_OFF + SHOW_CURSOR);
  try {
    writeFileSync(file, draft, { mode: 0o600 });
    // Through the shell, as git runs it: the variable may carry arguments ("code --wait"). The
    // shell outlives a Ctrl+C (its trap) and says how the editor ended: the signal is the editor's to handle.
    const run = spawnSync('/bin/sh', ['-c', `trap : INT; ${command} "$1"`, 'sh', file], { stdio: 'inherit', env });
    if (run.error) return { error: `Could not run ${command}: ${run.error.message}` };
    if (run.status !== 0) return { error: `${command} ended with ${run.status ?? run.signal}; the draft is as it was.` };
    const text = readFileSync(file, 'utf8');
    // Editors end a file with a line break; a draft does not.
    return { text: text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text };
  } finally {
    writeRaw(BRACKETED_PASTE_ON + HIDE_CURSOR);
    rmSync(dir, { recursive: true, force: true });
    // A Ctrl+C typed in the editor is delivered once the loop runs again: still ignored then.
    setTimeout(() => process.off('SIGINT', ignoreInterrupt), 100).unref();
  }
}
