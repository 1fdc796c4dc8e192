import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { InputHistory } from '../tui/chat/session.js';

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
    return text.split('\n').flatMap((line) => {
      if (!line) return [];
      try {
        const entry: unknown = JSON.parse(line);
        return typeof entry === 'string' ? [entry] : [];
      } catch {
        return [];
      }
    });
  };
  return {
    entries: () => read().slice(-KEEP),
    add(text) {
      try {
        appendFileSync(path, `${JSON.stringify(text)}\n`, { mode: 0o600 });
        const all = read();
        if (all.length > 2 * KEEP) writeFileSync(path, all.slice(-KEEP).map((entry) => `${JSON.stringify(entry)}\n`).join(''), { mode: 0o600 });
      } catch {
        // A history that cannot be written is no reason to stop the chat.
      }
    },
  };
}
