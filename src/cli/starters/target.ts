import { readdirSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { UsageError } from 'clipanion';
import { shellWord } from '../shell.js';

/** Where a new project goes. */
export interface Target {
  /** Absolute path. */
  dir: string;
  /** How to name it to a shell in the working directory ('' for the working directory itself), for `cd`. */
  relativeDir: string;
  /** The package name, from the directory's name. */
  packageName: string;
}

/** What npm accepts as a package name: lower case, URL-safe, not starting with `.` or `_`. */
function packageNameOf(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  return name === '' ? 'svc-app' : name;
}

/**
 * The project directory for `arg`, absolute or relative to the working directory. Under the
 * working directory the `cd` step is relative; elsewhere it is the absolute path.
 */
export function resolveTarget(arg: string, cwd: string): Target {
  if (arg.includes('\0')) throw new UsageError('The directory name must not contain a NUL character.');
  const dir = resolve(cwd, arg);
  const inside = relative(cwd, dir);
  const under = inside === '' || !(isAbsolute(inside) || /^\.\.(?:[\\/]|$)/.test(inside));
  return { dir, relativeDir: inside === '' ? '' : shellWord(under ? inside : dir), packageName: packageNameOf(dir) };
}

/**
 * Whether the directory exists; throws unless it is missing or empty. A lone `.git` counts as
 * empty, so `git init` may come first.
 */
export function checkEmpty(target: Target): boolean {
  let entries: string[];
  try {
    entries = readdirSync(target.dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR') throw new UsageError(`${target.relativeDir} exists and is not a directory.`);
    // EACCES, ELOOP, …: the command line names a place svc cannot use; say so in one line.
    throw new UsageError(`Cannot read ${target.relativeDir || 'the working directory'}: ${code ?? (error as Error).message}.`);
  }
  const blocking = entries.filter((entry) => entry !== '.git');
  if (blocking.length > 0) {
    const where = target.relativeDir === '' ? 'The working directory' : target.relativeDir;
    throw new UsageError(
      `${where} is not empty (${blocking.length} ${blocking.length === 1 ? 'entry' : 'entries'}): svc new writes only into a new or empty directory.`,
    );
  }
  return true;
}
