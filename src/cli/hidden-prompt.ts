import type { Writable } from 'node:stream';

/** A terminal's input, as far as the prompt needs it. */
type TerminalInput = NodeJS.ReadableStream & { setRawMode?(mode: boolean): unknown; isRaw?: boolean };

/** The prompt was left with Ctrl+C or Ctrl+D: nothing was entered. */
export class PromptCanceled extends Error {
  constructor() {
    super('canceled');
  }
}

const ENTER = new Set(['\r', '\n']);
const CANCEL = new Set(['\u0003', '\u0004']);
const ERASE = new Set(['\u007f', '\b']);
const CLEAR_LINE = '\u0015';

/**
 * Asks for a secret on a terminal without echoing it (as `sudo` does: nothing is shown), so it
 * never reaches the screen, the shell history or `ps`. Backspace and Ctrl+U edit; Enter ends;
 * Ctrl+C or Ctrl+D cancels. The terminal is put back as it was whatever happens.
 */
export function promptHidden(input: TerminalInput, output: Writable, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw === true;
    let typed = '';
    const finish = (outcome: () => void) => {
      input.removeListener('data', onData);
      input.setRawMode?.(wasRaw);
      input.pause();
      output.write('\n');
      outcome();
    };
    const onData = (chunk: Buffer | string) => {
      // Escape sequences (arrows, function keys) are no part of a key.
      const text = String(chunk).replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
      for (const character of text) {
        if (ENTER.has(character)) return finish(() => resolve(typed));
        if (CANCEL.has(character)) return finish(() => reject(new PromptCanceled()));
        if (ERASE.has(character)) typed = typed.slice(0, -1);
        else if (character === CLEAR_LINE) typed = '';
        else if (character >= ' ') typed += character;
      }
    };
    output.write(question);
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}
