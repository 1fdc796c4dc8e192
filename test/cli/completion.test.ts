import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, removeTempDirs, runSvc, runSvcIntoClosedPipe, tempDir } from '../helpers/cli.js';

/**
 * `svc completion <shell>`: each script is loaded into the real shell and asked what Tab offers.
 * zsh and fish are optional on a developer's machine; the bash checks always run.
 */

const home = tempDir();
const scripts: Record<string, string> = {};
beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runSvc(['completion', shell], { home });
    expect(result.code, explain(result)).toBe(0);
    scripts[shell] = join(home, `svc.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
});
afterAll(removeTempDirs);

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** What bash offers for the command line `words` (the last one being completed). */
function bash(...words: string[]): string[] {
  const program = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program, 'bash', scripts.bash as string, ...words], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('bash', () => {
  it('completes commands, api groups and operations', () => {
    expect(bash('svc', '')).toEqual(['admin', 'api', 'auth', 'chat', 'completion', 'dashboard', 'docs', 'new', 'serve']);
    expect(bash('svc', 'api', 'dev')).toEqual(['developer']);
    expect(bash('svc', 'api', 'developer', 'apps', '')).toContain('api-keys');
    expect(bash('svc', 'api', 'developer', 'apps', 'api-keys', 'cr')).toEqual(['create']);
  });

  it('completes the flags of the command, also after a positional argument', () => {
    expect(bash('svc', 'api', 'developer', 'apps', 'list', '--')).toEqual(expect.arrayContaining(['--paginate', '--limit', '--help']));
    expect(bash('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'some-uuid', '--r')).toEqual(['--role']);
  });

  it('completes the values of enum flags from the contract', () => {
    expect(bash('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'x', '--role', '')).toEqual(['inference', 'read_only', 'admin']);
    expect(bash('svc', 'api', 'subscriptions', 'upgrade', '--tier', '')).toEqual(['starter', 'pro']);
    expect(bash('svc', 'new', '--starter', 'm')).toEqual(['mini', 'messenger']);
    expect(bash('svc', 'completion', '')).toEqual([]); // positional arguments are left to the shell
  });

  it('offers nothing of its own for a free value, so bash falls back to file names', () => {
    expect(bash('svc', 'api', 'chat', 'completions', '--json', '@')).toEqual([]);
    expect(readFileSync(scripts.bash as string, 'utf8')).toContain('complete -o default -F _svc_complete svc');
  });
});

describe.skipIf(!has('zsh'))('zsh', () => {
  /** The script's function with compadd and _files stubbed to print what they are given. */
  function zsh(...words: string[]): string {
    const program = `compdef(){}; compadd(){ shift; print -r -- "$*" }; _files(){ print FILES }; source "$1"; shift; words=("$@"); CURRENT=$#; PREFIX="\${words[CURRENT]}"; _svc`;
    return execFileSync('zsh', ['-c', program, 'zsh', scripts.zsh as string, ...words], { encoding: 'utf8' }).trim();
  }

  it('walks the same table', () => {
    expect(zsh('svc', 'api', 'developer', '')).toBe('apps billing');
    expect(zsh('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'x', '--role', '')).toBe('inference read_only admin');
    expect(zsh('svc', 'api', 'developer', 'apps', 'list', '--')).toContain('--paginate');
    expect(zsh('svc', 'new', 'my-dir', '')).toBe('FILES');
  });
});

describe.skipIf(!has('fish'))('fish', () => {
  const fish = (line: string): string[] =>
    execFileSync('fish', ['-c', `source $argv[1]; complete -C "${line}"`, scripts.fish as string], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.split('\t')[0] as string);

  it('completes paths, flags and enum values', () => {
    expect(fish('svc api dev')).toEqual(['developer']);
    expect(fish('svc new --starter ')).toEqual(['messenger', 'mini', 'web']);
    expect(fish('svc api developer apps list --pa')).toEqual(['--paginate']);
  });
});

it('an unknown shell is a usage error; a closed pipe ends it quietly', async () => {
  const wrong = await runSvc(['completion', 'powershell'], { home });
  expect(wrong.code, explain(wrong)).toBe(2);
  expect(wrong.stdout + wrong.stderr).toMatch(/expected one of "bash", "zsh", or "fish"/);
  const piped = await runSvcIntoClosedPipe(['completion', 'bash'], { home });
  expect(piped).toMatchObject({ code: 0, stderr: '' });
});
