import type { Definition } from 'clipanion';
import { GROUP_DESCRIPTIONS } from '../contract/groups.js';
import { namePlaceholders } from './placeholders.js';

/** The words of a command line before its first option: what names the command. */
const typedCommand = (argv: readonly string[]) => {
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

/** `svc api` alone, or `svc api <group>`: the groups, or the group's commands, a line each. */
export function apiIndex(argv: readonly string[], definitions: Definition[]): string | null {
  const words = typedCommand(argv);
  if (words[0] !== 'api' || words.length > 2) return null;
  const api = definitions.filter((d) => pathWords(d)[0] === 'api');
  if (words.length === 1) {
    const groups = [...new Set(api.map((d) => pathWords(d)[1] as string))];
    const width = Math.max(...groups.map((g) => g.length));
    return [
      'svc api <group> <command> [arguments] [--flags]: call one operation of the API (JSON out).',
      '',
      'Groups (`svc api <group>` lists its commands):',
      ...groups.map((group) => `  ${group.padEnd(width)}  ${GROUP_DESCRIPTIONS[group] ?? ''}`),
      '',
    ].join('\n');
  }
  const group = words[1] as string;
  const members = api.filter((d) => pathWords(d)[1] === group && d.path !== `svc api ${group}`);
  if (members.length === 0 || api.some((d) => d.path === `svc api ${group}`)) return null;
  const names = members.map((d) => pathWords(d).slice(1).join(' '));
  const width = Math.max(...names.map((n) => n.length));
  return [
    `svc api ${group}: ${GROUP_DESCRIPTIONS[group] ?? ''}`,
    '',
    ...members.map((d, i) => `  svc api ${(names[i] as string).padEnd(width)}  ${(d.description ?? '').trim()}`),
    '',
    'Each takes --help.',
    '',
  ].join('\n');
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
    return `svc ${typed}: missing ${what}. Usage: ${namePlaceholders(exact.usage.trim())}\nSee \`svc ${typed} --help\`.\n`;
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
