import type { Definition } from 'clipanion';
import { GROUP_DESCRIPTIONS } from '../contract/groups.js';
import { VERSION } from '../version.js';
import { commandWords } from './command-words.js';
import { namePlaceholders } from './placeholders.js';

/**
 * The help that lists commands: `svc --help` (one line per top-level word, by category) and
 * `svc <group> [--help]` (the group's commands, a line each), so no listing runs to hundreds of
 * lines; each command's own `--help` stays clipanion's.
 */

const wordsOf = (definition: Definition) => commandWords(definition.path);

/** Commands a person lists: not the hidden ones (`svc __complete`). */
const listed = (definitions: readonly Definition[]) => definitions.filter((d) => !wordsOf(d)[0]?.startsWith('_'));

/** What a top-level word with several commands under it is for. */
const TOP_GROUPS: Record<string, string> = {
  auth: 'Your saved API key: login, logout, status',
  admin: 'Run where the database is: developers, keys, credits, migrate',
  server: 'The background server: status, stop, logs',
  api: 'Call the API: `svc api <group> <command>`, or any path: `svc api /models`',
};

/** The listing's sections: commands' categories, a few folded together so the listing stays short. */
const SECTION: Record<string, string> = { Chat: 'Use', Dashboard: 'Use', Starters: 'Use', Docs: 'Help and setup', Setup: 'Help and setup' };
const CATEGORY_ORDER = ['Use', 'Server', 'Account', 'API', 'Operator', 'Help and setup'];
const categoryOf = (definition: Definition) => {
  const category = (definition.category ?? 'Other').trim().replace(/^API: .*/, 'API');
  return SECTION[category] ?? category;
};

/** `svc --help`: each top-level word once, under its category. */
export function topHelp(definitions: readonly Definition[]): string {
  const byWord = new Map<string, Definition[]>();
  for (const definition of listed(definitions)) {
    const word = wordsOf(definition)[0];
    if (word) byWord.set(word, [...(byWord.get(word) ?? []), definition]);
  }
  const byCategory = new Map<string, Array<[string, string]>>();
  for (const [word, members] of byWord) {
    const own = members.find((d) => wordsOf(d).length === 1);
    const description = TOP_GROUPS[word] ?? (members.length === 1 && own ? (own.description ?? '').trim() : [...new Set(members.map((d) => wordsOf(d)[1]))].join(', '));
    const category = categoryOf(own ?? (members[0] as Definition));
    byCategory.set(category, [...(byCategory.get(category) ?? []), [word, description]]);
  }
  const rank = (category: string) => (CATEGORY_ORDER.includes(category) ? CATEGORY_ORDER.indexOf(category) : CATEGORY_ORDER.length);
  const width = Math.max(...[...byWord.keys()].map((word) => word.length));
  const sections = [...byCategory]
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([category, rows]) => [category, ...rows.map(([word, description]) => `  ${word.padEnd(width)}  ${description}`)].join('\n'));
  return [
    `svc ${VERSION}: a self-hostable AI gateway and its terminal client`,
    '',
    'Usage: svc <command> [arguments] [--flags]',
    '',
    sections.join('\n\n'),
    '',
    '`svc <command> --help` explains a command; `svc api` lists the API groups.',
    '',
  ].join('\n');
}

/** `svc api`: the API's groups, a line each. */
function apiGroups(definitions: readonly Definition[]): string {
  const groups = [...new Set(definitions.filter((d) => wordsOf(d)[0] === 'api' && wordsOf(d).length > 1).map((d) => wordsOf(d)[1] as string))];
  const width = Math.max(...groups.map((g) => g.length));
  return [
    'svc api <group> <command> [arguments] [--flags]: call one operation of the API (JSON out).',
    'svc api <path> [-X method] [-H name:value] [--input file|-]: call any path, as `gh api` does.',
    '--jq <expression>, -i (status and headers) and --verbose work with both.',
    '',
    'Groups (`svc api <group>` lists its commands):',
    ...groups.map((group) => `  ${group.padEnd(width)}  ${GROUP_DESCRIPTIONS[group] ?? ''}`.trimEnd()),
    '',
  ].join('\n');
}

/**
 * `svc <words…>` where the words are a group rather than a command (`svc admin`, `svc api
 * credits`, `svc auth`): its commands, a line each. `null` when the words name a command or
 * nothing at all.
 */
export function groupIndex(words: readonly string[], definitions: readonly Definition[]): string | null {
  if (words.length === 0) return null;
  const typed = words.join(' ');
  if (definitions.some((d) => wordsOf(d).join(' ') === typed)) return null;
  if (typed === 'api') return apiGroups(definitions);
  const members = listed(definitions).filter((d) => wordsOf(d).slice(0, words.length).join(' ') === typed);
  if (members.length === 0) return null;
  const names = members.map((d) => wordsOf(d).join(' '));
  const width = Math.max(...names.map((n) => n.length));
  const about = words[0] === 'api' && words.length === 2 ? GROUP_DESCRIPTIONS[words[1] as string] : words.length === 1 ? TOP_GROUPS[words[0] as string] : undefined;
  return [
    `svc ${typed}${about ? `: ${about}` : ''}`,
    '',
    ...members.map((d, i) => `  svc ${(names[i] as string).padEnd(width)}  ${(d.description ?? '').trim()}`),
    '',
    'Each takes --help.',
    '',
  ].join('\n');
}

/**
 * A command's short usage: its words, its arguments and the options it requires, then
 * `[flags]` when it has others (`--help` lists them).
 */
export function shortUsage(definition: Definition): string {
  const required = definition.options.filter((o) => o.required).map((o) => namePlaceholders(o.definition));
  const optional = definition.options.some((o) => !o.required);
  // clipanion's short usage inlines the options that have no description: keep its words and arguments only.
  const wordsAndArguments = definition.usage.trim().replace(/ \[-[^\]]*\]| --?[a-z][\w-]*(?: #\d+)?/g, '');
  return [wordsAndArguments, ...required, ...(optional ? ['[flags]'] : [])].join(' ');
}
