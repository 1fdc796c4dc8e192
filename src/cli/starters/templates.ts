import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, sep } from 'node:path';

/**
 * The templates ship as files in the package's `src/starters/templates` (package.json "files").
 * This module runs from `src/cli/starters` under tests and from a chunk in `dist/cli` once built.
 */
const LOCATIONS = ['../../starters/templates/', '../../src/starters/templates/'];

/**
 * Template files stored under another name: npm drops `.gitignore` from packages, and a
 * `package.json` or `tsconfig.json` there would be taken for part of this repository by tools.
 */
const STORED_AS: Record<string, string> = {
  _gitignore: '.gitignore',
  '_env.example': '.env.example',
  '_package.json': 'package.json',
  '_tsconfig.json': 'tsconfig.json',
};

/** Values for the `__NAME__` placeholders of the templates. */
export interface TemplateValues {
  PROJECT_NAME: string;
  SVC_API_URL: string;
}

export interface ProjectFile {
  /** Relative to the project, with `/` separators. */
  path: string;
  content: string;
}

function templatesDir(name: string): string {
  for (const location of LOCATIONS) {
    const dir = fileURLToPath(new URL(`${location}${name}/`, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error(`The starter templates (${name}) are missing from this installation of svc; reinstall it.`);
}

function render(text: string, values: TemplateValues): string {
  // The names spelled out, so `sandbox___PROJECT_NAME__` reads as `sandbox_` and a placeholder.
  const placeholder = new RegExp(`__(${Object.keys(values).join('|')})__`, 'g');
  return text.replace(placeholder, (_match, name: keyof TemplateValues) => values[name]);
}

/** The files of one template directory, renamed and filled in. */
function renderDir(name: string, values: TemplateValues): ProjectFile[] {
  const dir = templatesDir(name);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const relativeDir = entry.parentPath.slice(dir.length).split(sep).filter(Boolean);
      return {
        path: [...relativeDir, STORED_AS[entry.name] ?? entry.name].join('/'),
        content: render(readFileSync(join(entry.parentPath, entry.name), 'utf8'), values),
      };
    });
}

/**
 * The project's files from the template directories `names`, in a stable order. A later
 * directory's file replaces an earlier one's at the same path.
 */
export function renderTemplates(names: readonly string[], values: TemplateValues): ProjectFile[] {
  const files = new Map(names.flatMap((name) => renderDir(name, values)).map((file) => [file.path, file]));
  return [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** `text` (a dotenv file) with `name` set to `value`; the variable must be in it already. */
export function withEnvValue(text: string, name: string, value: string): string {
  const line = new RegExp(`^${name}=.*$`, 'm');
  if (!line.test(text)) throw new Error(`The template's .env.example has no ${name}.`);
  return text.replace(line, `${name}=${value}`);
}
