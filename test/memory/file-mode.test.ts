import { existsSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useMemoryFiles } from './helpers.js';

const files = useMemoryFiles();

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('memory.db file permissions', () => {
  it('creates the file and its -wal and -shm readable by the owner only, whatever the umask', () => {
    const umask = process.umask(0o022);
    try {
      const { memory } = files.open();
      memory.vault.save({ content: 'A private note' });
      const file = files.file();
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path), path).toBe(true);
        expect(modeOf(path), path).toBe('600');
      }
    } finally {
      process.umask(umask);
    }
  });

  it('narrows a file an older svc left world-readable', () => {
    const file = files.file();
    writeFileSync(file, '', { mode: 0o644 });
    expect(modeOf(file)).toBe('644');
    const { memory } = files.open();
    memory.vault.save({ content: 'Still private' });
    expect(modeOf(file)).toBe('600');
    expect(modeOf(`${file}-wal`)).toBe('600');
  });
});
