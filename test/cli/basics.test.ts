import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { explain, loadBuiltManifest, mapLimit, removeTempDirs, ROOT, runSvc, tempDir } from '../helpers/cli.js';

const home = tempDir();
afterAll(removeTempDirs);

describe('svc basics', () => {
  it('--version prints the package.json version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    // The launcher's fast path, through the real binary.
    const result = await runSvc(['--version'], { home, spawn: true });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('--help exits 0 and lists the api, auth and serve commands', async () => {
    const result = await runSvc(['--help'], { home });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toMatch(/^ {2}api +Call the API/m);
    expect(result.stdout).toMatch(/^ {2}auth +Your saved API key: login, logout, status$/m);
    expect(result.stdout).toMatch(/^ {2}serve +Run the platform server/m);
  });

  it('every command accepts --help and exits 0', async () => {
    const manifest = loadBuiltManifest();
    expect(manifest.length).toBeGreaterThanOrEqual(48);
    const commands = [
      ...manifest.map((op) => ['api', ...op.cli]),
      ['auth', 'login'],
      ['auth', 'status'],
      ['auth', 'logout'],
      ['serve'],
    ];
    const failures: string[] = [];
    await mapLimit(commands, 6, async (words) => {
      const result = await runSvc([...words, '--help'], { home });
      // The detailed help of that command, not the general listing: its usage line spells it.
      if (result.code !== 0 || !result.stdout.includes(`$ svc ${words.join(' ')}`)) {
        failures.push(`svc ${words.join(' ')} --help → ${explain(result)}`);
      }
    });
    expect(failures).toEqual([]);
  }, 60_000);

  it('-h works like --help', async () => {
    for (const words of [[], ['api', 'developer', 'apps', 'list'], ['auth', 'login'], ['serve']]) {
      const result = await runSvc([...words, '-h'], { home });
      expect(result.code, explain(result)).toBe(0);
      expect(result.stdout).toMatch(words.length === 0 ? /^ {2}auth +Your saved API key/m : new RegExp(`\\$ svc ${words.join(' ')}`));
    }
  });

  it('an unknown command exits 2 with the error on stderr', async () => {
    for (const args of [['bogus'], ['api', 'developer', 'apps', 'bogus']]) {
      // The exit code as the shell sees it: through the real binary.
      const result = await runSvc(args, { home, spawn: true });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/command not found/i);
    }
  });

  it('an unknown option exits 2', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'list', '--no-such-flag'], { home });
    expect(result.code, explain(result)).toBe(2);
    expect(result.stdout).toBe('');
  });
});
