import { commandWords } from '../command-words.js';

/** What a clipanion definition tells completion: its path and options (values named, as in `--help`). */
export interface DefinitionLike {
  path: string;
  options: ReadonlyArray<{ definition: string }>;
}

/**
 * Everything a shell needs to complete svc, keyed by command path (`svc`, `svc api`, …): the
 * words that may follow a path, the flags of a command, and the values an enum flag takes.
 */
export interface CompletionSpec {
  next: Map<string, string[]>;
  flags: Map<string, string[]>;
  /** Keyed `<command path> <flag>`. */
  values: Map<string, string[]>;
}

/** `--starter <mini|web|messenger>` → the flag's values. */
const ENUM_FLAG = /^(--[a-z0-9-]+)(?:,-[a-z])? <([^<>|\s]+(?:\|[^<>|\s]+)+)>$/;

export function completionSpec(definitions: readonly DefinitionLike[]): CompletionSpec {
  const next = new Map<string, Set<string>>();
  const flags = new Map<string, string[]>();
  const values = new Map<string, string[]>();
  for (const definition of definitions) {
    const words = commandWords(definition.path);
    words.forEach((word, i) => {
      const parent = ['svc', ...words.slice(0, i)].join(' ');
      next.set(parent, (next.get(parent) ?? new Set()).add(word));
    });
    const path = ['svc', ...words].join(' ');
    const names = definition.options.flatMap((option) => (option.definition.split(' ')[0] ?? '').split(',')).filter((name) => name.startsWith('--'));
    flags.set(path, [...new Set([...(flags.get(path) ?? []), ...names, '--help'])]);
    for (const option of definition.options) {
      const [, flag, choices] = ENUM_FLAG.exec(option.definition) ?? [];
      const list = choices?.split('|') ?? [];
      // `<json|@file|->` describes a form, not a list of values
      if (flag && !list.some((choice) => choice.startsWith('@') || choice === '-')) values.set(`${path} ${flag}`, list);
    }
  }
  return { next: new Map([...next].map(([path, words]) => [path, [...words].sort()])), flags, values };
}
