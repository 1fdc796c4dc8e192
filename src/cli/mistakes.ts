import type { Definition } from 'clipanion';
import { shortUsage } from './help.js';
import { namePlaceholders } from './placeholders.js';

/** The words of a command line before its first option: what names the command. */
export const typedCommand = (argv: readonly string[]) => {
  const end = argv.findIndex((word) => word.startsWith('-'));
  return end < 0 ? [...argv] : argv.slice(0, end);
};

const pathWords = (definition: Definition) => definition.path.split(' ').slice(1);

/** Edit distance (Levenshtein) between two strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * What went wrong with a command line clipanion could not match: a command that exists but was
 * given without something it requires (named), or one that does not exist (the closest few by
 * edit distance over the whole command path, best first).
 */
export function explainMistake(argv: readonly string[], definitions: Definition[]): string {
  const words = typedCommand(argv);
  const typed = words.join(' ');
  const exact = definitions.find((d) => pathWords(d).join(' ') === typed);
  if (exact) {
    const given = new Set(argv.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]));
    const missing = exact.options.filter((o) => o.required && !o.definition.split(/[ ,]/).some((name) => given.has(name)));
    const what = missing.length > 0 ? missing.map((o) => namePlaceholders(o.definition)).join(', ') : 'its arguments';
    return `svc ${typed}: missing ${what}. Usage: ${shortUsage(exact)}\nSee \`svc ${typed} --help\`.\n`;
  }
  const scored = definitions
    .map((d) => {
      const path = pathWords(d);
      // Compare with as many words as were typed: a typo in a prefix still finds the command.
      return { d, score: distance(typed, path.slice(0, Math.max(words.length, 1)).join(' ')) + Math.abs(path.length - words.length) * 0.1 };
    })
    .sort((a, b) => a.score - b.score);
  const best = scored.filter((s) => s.score <= Math.max(2, typed.length * 0.4)).slice(0, 3);
  const seen = new Set<string>();
  const lines = best.flatMap(({ d }) => (seen.has(d.path) ? [] : (seen.add(d.path), [`  ${d.path}`])));
  return `svc: command not found: \`svc ${typed}\`.${lines.length ? `\nDid you mean:\n${lines.join('\n')}` : ''}\nSee \`svc --help\`${words[0] === 'api' ? ' or `svc api`' : ''}.\n`;
}

/**
 * A command line clipanion matched but refused (an unknown option, a bad value), or a command
 * that refused its input: the message, then the command's short usage, not every flag.
 */
export function usageError(argv: readonly string[], definitions: Definition[], message: string): string {
  const words = typedCommand(argv);
  const matches = (d: Definition) => pathWords(d).every((word, i) => words[i] === word);
  const definition = definitions.filter(matches).sort((a, b) => pathWords(b).length - pathWords(a).length)[0];
  const reason = (message.split('\n\n')[0] ?? message).trim();
  if (!definition) return `svc: ${reason}\nSee \`svc --help\`.\n`;
  const name = pathWords(definition).join(' ');
  return `svc ${name}: ${reason}\nUsage: ${shortUsage(definition)}\nSee \`svc ${name} --help\`.\n`;
}
