import type { CommandShape } from './spec.js';

/**
 * What Tab offers for a command line, as cobra's `__complete` answers it: the words that fit, and
 * whether the shell may offer file names instead when none does.
 */
export interface Completion {
  candidates: string[];
  files: boolean;
}

/** Values that only the server knows (models, app ids), fetched on demand. */
export type DynamicSource = 'models' | 'apps';

/** The values a placeholder or an argument takes: a static list, a dynamic source, file names, or nothing to offer. */
export type ValueSource = { words: readonly string[] } | { dynamic: DynamicSource } | { files: true } | null;

/** Where the values of a named placeholder or argument come from; `static` knows the fixed lists (screens, shells). */
export function valueSource(name: string, fixed: Record<string, readonly string[]>): ValueSource {
  if (fixed[name]) return { words: fixed[name] };
  if (name === 'model') return { dynamic: 'models' };
  if (name === 'app-uuid') return { dynamic: 'apps' };
  if (/file/.test(name) || name === 'dir') return { files: true };
  const choices = name.split('|');
  return choices.length > 1 ? { words: choices } : null;
}

/**
 * Completes `words` (everything after `svc`, the last being the word under the cursor, maybe
 * empty). `lookup` answers the dynamic sources (and may give up: `[]`).
 */
export async function complete(
  words: readonly string[],
  shapes: readonly CommandShape[],
  fixed: Record<string, readonly string[]>,
  lookup: (source: DynamicSource) => Promise<string[]>,
): Promise<Completion> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  // The command path: the longest run of leading words that some command starts with.
  let depth = 0;
  while (depth < before.length && shapes.some((s) => s.words.length > depth && s.words.slice(0, depth + 1).join(' ') === before.slice(0, depth + 1).join(' '))) depth++;
  const path = before.slice(0, depth).join(' ');
  const command = shapes.find((s) => s.words.join(' ') === path);
  const children = [...new Set(shapes.filter((s) => s.words.length > depth && s.words.slice(0, depth).join(' ') === path).map((s) => s.words[depth] as string))];

  const answer = async (source: ValueSource): Promise<Completion> => {
    if (source === null) return { candidates: [], files: false };
    if ('files' in source) return { candidates: [], files: true };
    const all = 'words' in source ? [...source.words] : await lookup(source.dynamic);
    return { candidates: all.filter((word) => word.startsWith(current)), files: false };
  };

  const optionNamed = (name: string | undefined) => command?.options.find((o) => name !== undefined && o.names.includes(name));
  const previous = optionNamed(before.at(-1));
  if (command && before.length > depth && previous?.value) return answer(valueSource(previous.value, fixed));
  if (current.startsWith('-')) {
    const names = [...(command?.options ?? []).flatMap((o) => o.names.filter((n) => n.startsWith('--'))), '--help'];
    return answer({ words: [...new Set(names)] });
  }
  if (before.length === depth && children.length > 0) return answer({ words: children.sort() });
  if (!command) return { candidates: [], files: false };
  // Which argument the cursor is on: the words after the path that are neither options nor their values.
  let given = 0;
  for (let i = depth; i < before.length; i++) {
    const word = before[i] as string;
    if (word.startsWith('-')) {
      if (optionNamed(word)?.value && !word.includes('=')) i++;
    } else given++;
  }
  const argument = command.positionals[given];
  return argument ? answer(valueSource(argument, fixed)) : { candidates: [], files: false };
}
