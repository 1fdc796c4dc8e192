import type { Field } from '../contract/json-schema.js';
import { flagKind, kebab } from './flags.js';
import { stripVTControlCharacters } from 'node:util';

/**
 * What the value of an option is, as `--help` shows it: `--name <name>`, `--tier <starter|pro>`,
 * `--credits <number>` (clipanion itself only writes `#0`).
 */
export function placeholderOf(field: Field): string {
  if (field.schema.enum && field.schema.enum.length <= 6) return field.schema.enum.join('|');
  switch (flagKind(field)) {
    case 'number':
      return 'number';
    case 'json':
      return field.schema.type === 'array' || field.schema.anyOf?.some((s) => s.type === 'array') ? 'list' : 'json';
    default:
      return kebab(field.name);
  }
}

/** The values of the hand-written commands' options, where the option's name does not say it. */
const NAMED: Record<string, string> = {
  '--api-url': 'url',
  '--api-key': 'key',
  '--db': 'file',
  '--providers': 'file',
  '--starting-credits': 'number',
  '--credits': 'number',
  '--system': 'prompt',
  '--conversation': 'id',
  '--starter': 'mini|web|messenger',
  '--idp': 'idp-app-id',
  '--payments': 'stripe|sandbox|off',
  '--app': 'app-uuid',
  '--json': 'json|@file|-',
  '--jq': 'expression',
};

/** A command class's own table of option values (`static placeholders`), if it has one. */
export function placeholderTable(command: object): Record<string, string> {
  return (command as { placeholders?: Record<string, string> }).placeholders ?? {};
}

/**
 * `--flag #0` in a usage text, with the value named (from the command's own table, else by
 * name), and the option lines aligned again for the longer names.
 */
export function namePlaceholders(usage: string, table: Record<string, string> = {}): string {
  const named = usage.replace(/(--[a-z][a-z0-9-]*) #0/g, (_, flag: string) => `${flag} <${table[flag] ?? NAMED[flag] ?? flag.slice(2)}>`);
  const option = /^( {2})(-\S.*?)( {2,})(\S.*)$/;
  const lines = named.split('\n');
  const width = Math.max(0, ...lines.map((line) => option.exec(stripVTControlCharacters(line))?.[2]?.length ?? 0));
  return lines
    .map((line) => {
      const match = option.exec(stripVTControlCharacters(line));
      return match ? `  ${(match[2] as string).padEnd(width)}  ${match[4]}` : line;
    })
    .join('\n');
}

