import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProjectFile } from './templates.js';

/**
 * Writes the files into `dir`, which is missing or empty. On failure it removes what it wrote,
 * so a retry finds the directory as it was.
 */
export function writeProject(dir: string, files: readonly ProjectFile[]): void {
  const existed = existsSync(dir);
  const created = new Set<string>();
  try {
    mkdirSync(dir, { recursive: true });
    for (const file of files) {
      const top = join(dir, file.path.split('/')[0] as string);
      if (!existsSync(top)) created.add(top);
      const path = join(dir, file.path);
      mkdirSync(dirname(path), { recursive: true });
      // 'wx': never overwrite, even a file that appeared after the emptiness check.
      writeFileSync(path, file.content, { flag: 'wx' });
    }
  } catch (error) {
    for (const path of existed ? created : [dir]) rmSync(path, { recursive: true, force: true });
    throw error;
  }
}
