import { readdirSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { UsageError } from 'clipanion';

/** Where a new project goes. */
export interface Target {
  /** Absolute path. */
  dir: string;
  /** The same, relative to the working directory ('' for the working directory itself), for `cd`. */
  relativeDir: string;
  /** The package name, from the directory's name. */
  packageName: string;
}

/** A directory name that needs no quoting in a shell and no escaping in package.json. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

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
 * The project directory for `arg`: inside the working directory, never through `..` (a starter
 * writes a dozen files, and a mistyped path must not spray them somewhere else).
 */
export function resolveTarget(arg: string, cwd: string): Target {
  const inside = isAbsolute(arg) ? relative(cwd, arg) : arg;
  if (isAbsolute(inside) || /^\.\.(?:[\\/]|$)/.test(inside)) {
    throw new UsageError(`${arg} is outside the working directory: give a name like my-app, or a path inside ${cwd}.`);
  }
  const segments = inside.split(/[\\/]/).filter((segment) => segment !== '' && segment !== '.');
  for (const segment of segments) {
    if (segment === '..') throw new UsageError(`${arg} must not contain '..': give a path inside the working directory.`);
    if (!SEGMENT.test(segment)) {
      throw new UsageError(
        `${JSON.stringify(arg)} is not a usable project name: use letters, digits, '.', '_' and '-', starting with a letter or digit.`,
      );
    }
  }
  const dir = resolve(cwd, ...segments);
  return { dir, relativeDir: segments.join('/'), packageName: packageNameOf(dir) };
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
    throw error;
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
