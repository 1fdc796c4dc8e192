import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `~` and `~/…` are the home directory, as in a shell. */
export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

/**
 * Tab on a path: the longest completion every match shares (a directory gets its `/`), and the
 * matches themselves when there are several, to show.
 */
export function completePath(typed: string): { completed: string; matches: string[] } {
  const slash = typed.lastIndexOf('/');
  const dir = slash >= 0 ? typed.slice(0, slash + 1) : '';
  const prefix = typed.slice(slash + 1);
  let entries: { name: string; isDir: boolean }[];
  try {
    entries = readdirSync(expandHome(dir || '.'), { withFileTypes: true }).map((entry) => ({ name: entry.name, isDir: entry.isDirectory() }));
  } catch {
    return { completed: typed, matches: [] };
  }
  const matches = entries
    .filter((entry) => entry.name.startsWith(prefix) && (prefix.startsWith('.') || !entry.name.startsWith('.')))
    .map((entry) => `${entry.name}${entry.isDir ? '/' : ''}`)
    .sort();
  if (matches.length === 0) return { completed: typed, matches };
  let common = matches[0] as string;
  for (const match of matches) while (!match.startsWith(common)) common = common.slice(0, -1);
  return { completed: `${dir}${common}`, matches: matches.length > 1 ? matches : [] };
}
