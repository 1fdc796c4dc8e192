import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { InputHistory } from './types.js';

/** At most this many entries are kept; the file is rewritten when it holds twice as many. */
const KEEP = 1000;

/**
 * The chat's input history in a file (`~/.svc/chat_history.jsonl`): one JSON string a line,
 * appended as questions are sent, readable by the owner only. A damaged line is skipped.
 */
export function fileHistory(path: string): InputHistory {
  const read = (): string[] => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return [];
    }
    return parse(text);
  };
  const parse = (text: string): string[] =>
    text.split('\n').flatMap((line) => {
      if (!line) return [];
      try {
        const entry: unknown = JSON.parse(line);
        return typeof entry === 'string' ? [entry] : [];
      } catch {
        return [];
      }
    });
  /**
   * Lines in the file, as far as this process knows (another chat may append too: the count is
   * read again before a rewrite). Counted once, not at every question: entries can be 100 KB each.
   */
  let lines: number | null = null;
  return {
    entries() {
      const all = read();
      lines = all.length;
      return all.slice(-KEEP);
    },
    add(text) {
      try {
        appendFileSync(path, `${JSON.stringify(text)}\n`, { mode: 0o600 });
        lines = (lines ?? read().length - 1) + 1;
        if (lines <= 2 * KEEP) return;
        const before = readFileSync(path);
        const all = parse(before.toString('utf8'));
        lines = all.length;
        if (lines > 2 * KEEP) {
          // Other chats append to the same file: the trimmed copy is written aside, takes what
          // they appended meanwhile, and replaces the file in one rename, so no line is lost.
          const kept = all.slice(-KEEP).map((entry) => `${JSON.stringify(entry)}\n`).join('');
          writeFileSync(`${path}.${process.pid}`, kept, { mode: 0o600 });
          const since = readFileSync(path).subarray(before.length);
          if (since.length > 0) appendFileSync(`${path}.${process.pid}`, since);
          renameSync(`${path}.${process.pid}`, path);
          lines = KEEP;
        }
      } catch {
        // A history that cannot be written is no reason to stop the chat.
      }
    },
  };
}
