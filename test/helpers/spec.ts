import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const specPath = path.resolve(repoRoot, '../shared/SPEC.md');

export function readSpec(): string {
  return readFileSync(specPath, 'utf8');
}

/** The table rows under a `### heading`, each as its trimmed cells, header and divider left out. */
export function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `### ${heading}`);
  if (start < 0) throw new Error(`no heading "### ${heading}" in the specification`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.trim().startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    rows.push(
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  // rows[0] is the header, rows[1] the |---| divider.
  return rows.slice(2);
}

/** The text inside the backticks of a cell: "`a` and `b`" → ["a", "b"]. */
export function backticked(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

export interface SpecCommand {
  command: string;
  /** Positional arguments as the spec names them: `app-uuid`, `key-id`, … */
  positionals: string[];
  /** Backticked fields of the "Body or query fields" column, and whether it says "query". */
  fields: string[];
  fieldsAreQuery: boolean;
}

export function specCommands(markdown = readSpec()): SpecCommand[] {
  return tableUnder(markdown, 'Operations by command').map(([command = '', args = '', fields = '']) => {
    const name = backticked(command)[0];
    if (!name) throw new Error(`command cell without backticks: ${command}`);
    return {
      command: name,
      positionals: [...args.matchAll(/<([a-z-]+)>/g)].map((m) => m[1] as string),
      fields: backticked(fields),
      fieldsAreQuery: /^query\b/.test(fields),
    };
  });
}

export interface SpecPath {
  method: string;
  path: string;
  operation: string;
}

export function specPaths(markdown = readSpec()): SpecPath[] {
  return tableUnder(markdown, 'HTTP methods and paths known').map(([method = '', pathCell = '', operation = '']) => {
    const path = backticked(pathCell)[0];
    if (!path) throw new Error(`path cell without backticks: ${pathCell}`);
    return { method, path, operation };
  });
}
