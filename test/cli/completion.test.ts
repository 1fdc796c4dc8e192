import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, explain, runSvc, runSvcIntoClosedPipe, tempDir, useApiCli } from '../helpers/cli.js';

/**
 * `svc completion <shell>`: each script is loaded into the real shell, which calls the real
 * `svc __complete` (a `svc` on PATH runs the built CLI), and asked what Tab offers. zsh and fish
 * are optional on a developer's machine; the bash checks always run.
 */

const cli = useApiCli();
const scripts: Record<string, string> = {};
const bin = tempDir('svc-completion-bin-');
let env: NodeJS.ProcessEnv = {};
beforeAll(async () => {
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runSvc(['completion', shell], { home: cli.home });
    expect(result.code, explain(result)).toBe(0);
    scripts[shell] = join(cli.home, `svc.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
  env = childEnv(cli.home, { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, SVC_API_URL: cli.server.url, SVC_API_KEY: cli.server.liveKey });
});

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** What bash's completion function offers for the command line `words` (the last one being completed); `compopt` says when it lets bash offer files. */
// Asynchronous: the test server runs in this process, and must answer while the shell waits.
const run = promisify(execFile);
async function bash(...words: string[]): Promise<string[]> {
  const program = `source "$1"; shift; compopt(){ echo "FILES"; }; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['-c', program, 'bash', scripts.bash as string, ...words], { encoding: 'utf8', env });
  return stdout.split('\n').filter(Boolean);
}

describe('bash', () => {
  it('completes commands, api groups and operations (never the hidden __complete)', async () => {
    expect(await bash('svc', '')).toEqual(['admin', 'api', 'auth', 'chat', 'completion', 'dashboard', 'docs', 'new', 'serve', 'server']);
    expect(await bash('svc', 'server', '')).toEqual(['logs', 'status', 'stop']);
    expect(await bash('svc', 'api', 'dev')).toEqual(['developer']);
    expect(await bash('svc', 'api', 'developer', 'apps', '')).toContain('api-keys');
    expect(await bash('svc', 'api', 'developer', 'apps', 'api-keys', 'cr')).toEqual(['create']);
    expect(await bash('svc', 'admin', '')).toEqual(['credits', 'developers', 'keys', 'migrate']);
  });

  it('completes the flags of the command, also after a positional argument', async () => {
    expect(await bash('svc', 'api', 'developer', 'apps', 'list', '--')).toEqual(expect.arrayContaining(['--paginate', '--limit', '--jq', '--help']));
    expect(await bash('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'some-uuid', '--r')).toEqual(['--role']);
  });

  it('completes the values of enum flags from the contract', async () => {
    expect(await bash('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'x', '--role', '')).toEqual(['inference', 'read_only', 'admin']);
    expect(await bash('svc', 'api', 'subscriptions', 'upgrade', '--tier', '')).toEqual(['starter', 'pro']);
    expect(await bash('svc', 'new', '--starter', 'm')).toEqual(['mini', 'messenger']);
    expect(await bash('svc', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes dashboard screens, not file names', async () => {
    expect(await bash('svc', 'dashboard', '')).toEqual(expect.arrayContaining(['apps', 'keys', 'usage', 'credits']));
    expect(await bash('svc', 'dashboard', 'us')).toEqual(['users', 'usage']);
    expect(await bash('svc', 'dashboard', 'zzz')).toEqual([]);
  });

  it('completes models and app ids from the server', async () => {
    expect(await bash('svc', 'chat', '--model', 'local/')).toEqual(expect.arrayContaining(['local/echo']));
    expect(await bash('svc', 'api', 'chat', 'completions', '--model', 'local/e')).toContain('local/echo');
    expect(await bash('svc', 'api', 'developer', 'apps', 'get', '')).toContain(cli.server.appUuid);
    expect(await bash('svc', 'api', 'developer', 'apps', 'get', cli.server.appUuid.slice(0, 6))).toEqual([cli.server.appUuid]);
  });

  it('lets bash offer file names where a file goes, and only there', async () => {
    expect(await bash('svc', 'new', '')).toEqual(['FILES']);
    expect(await bash('svc', 'serve', '--providers', '')).toEqual(['FILES']);
    expect(await bash('svc', 'chat', '--model', 'zzz')).toEqual([]);
  });
});

describe('the server lists: a short timeout and a cache', () => {
  const ask = (home: string, url: string, ...words: string[]) =>
    run(process.execPath, [BIN, '__complete', ...words], { encoding: 'utf8', env: childEnv(home, { SVC_API_URL: url, SVC_API_KEY: cli.server.liveKey }) });

  it('asks the server once, then answers from ~/.svc/cache while the list is fresh', async () => {
    let asked = 0;
    const models = createServer((req, res) => {
      asked++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'acme/one' }, { id: 'acme/two' }] }));
    });
    await new Promise<void>((resolve) => models.listen(0, '127.0.0.1', resolve));
    const home = tempDir();
    try {
      const url = `http://127.0.0.1:${(models.address() as AddressInfo).port}`;
      expect((await ask(home, url, 'chat', '--model', '')).stdout).toBe('acme/one\nacme/two\n:nofiles\n');
      expect((await ask(home, url, 'chat', '--model', 'acme/t')).stdout).toBe('acme/two\n:nofiles\n');
      expect(asked).toBe(1);
      expect(readdirSync(join(home, 'cache')).some((f) => f.startsWith('completion-models-'))).toBe(true);
    } finally {
      await new Promise((resolve) => models.close(resolve));
    }
  });

  it('a server that never answers costs at most the timeout, and offers nothing (no file names)', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const started = Date.now();
      const stuck = await ask(tempDir(), url, 'chat', '--model', '');
      // The lookup gives up after 1.5 s; the rest is a node process starting, which a loaded machine
      // can stretch to seconds. Without a timeout it would wait out fetch's own (minutes), far above this.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(stuck.stdout).toBe(':nofiles\n');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe.skipIf(!has('zsh'))('zsh', () => {
  /** The script's function with compadd and _files stubbed to print what they are given. */
  async function zsh(...words: string[]): Promise<string> {
    const program = `compdef(){}; compadd(){ shift; print -r -- "$*" }; _files(){ print FILES }; source "$1"; shift; words=("$@"); CURRENT=$#; _svc`;
    return (await run('zsh', ['-c', program, 'zsh', scripts.zsh as string, ...words], { encoding: 'utf8', env })).stdout.trim();
  }

  it('asks the same __complete', async () => {
    expect(await zsh('svc', 'api', 'developer', '')).toBe('apps billing');
    expect(await zsh('svc', 'api', 'developer', 'apps', 'api-keys', 'create', 'x', '--role', '')).toBe('inference read_only admin');
    expect(await zsh('svc', 'dashboard', 'us')).toBe('users usage');
    expect(await zsh('svc', 'new', 'my-dir', '')).toBe('');
    expect(await zsh('svc', 'new', '')).toBe('FILES');
  });
});

describe.skipIf(!has('fish'))('fish', () => {
  const fish = async (line: string): Promise<string[]> =>
    (await run('fish', ['-c', `source $argv[1]; complete -C "${line}"`, scripts.fish as string], { encoding: 'utf8', env })).stdout
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.split('\t')[0] as string);

  it('completes paths, flags, enum values and screens', async () => {
    expect(await fish('svc api dev')).toEqual(['developer']);
    expect(await fish('svc new --starter ')).toEqual(['messenger', 'mini', 'web']); // fish sorts
    expect(await fish('svc api developer apps list --pa')).toEqual(['--paginate']);
    expect(await fish('svc dashboard us')).toEqual(['usage', 'users']);
  });
});

it('an unknown shell is a usage error; a closed pipe ends it quietly', async () => {
  const wrong = await runSvc(['completion', 'powershell'], { home: cli.home });
  expect(wrong.code, explain(wrong)).toBe(2);
  expect(wrong.stdout + wrong.stderr).toMatch(/expected one of "bash", "zsh", or "fish"/);
  const piped = await runSvcIntoClosedPipe(['completion', 'bash'], { home: cli.home });
  expect(piped).toMatchObject({ code: 0, stderr: '' });
});
