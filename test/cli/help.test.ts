import { afterAll, describe, expect, it } from 'vitest';
import { explain, loadBuiltManifest, mapLimit, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';

const home = tempDir();
afterAll(removeTempDirs);

const lines = (text: string) => text.trimEnd().split('\n');

describe('svc --help', () => {
  it('lists the commands grouped, in at most 40 lines; `svc` and `svc help` print the same', async () => {
    const help = await runSvc(['--help'], { home });
    expect(help.code, explain(help)).toBe(0);
    expect(lines(help.stdout).length).toBeLessThanOrEqual(40);
    for (const section of ['Use', 'Server', 'Account', 'API', 'Operator']) expect(help.stdout).toMatch(new RegExp(`^${section}$`, 'm'));
    for (const word of ['chat', 'dashboard', 'new', 'serve', 'auth', 'api', 'admin', 'docs', 'completion']) expect(help.stdout).toMatch(new RegExp(`^ {2}${word} +\\S`, 'm'));
    expect(help.stdout).not.toContain('__complete');
    for (const other of [[], ['help'], ['-h']]) expect((await runSvc(other, { home })).stdout).toBe(help.stdout);
  });

  it('every group answers `svc <group> --help` and `svc <group>` with its commands, exit 0', async () => {
    const groups = [['auth'], ['admin'], ['admin', 'developers'], ['api'], ...[...new Set(loadBuiltManifest().filter((op) => op.cli.length > 1).map((op) => op.cli[0] as string))].map((g) => ['api', g])];
    const failures: string[] = [];
    await mapLimit(groups, 4, async (words) => {
      for (const args of [[...words, '--help'], words]) {
        const result = await runSvc(args, { home });
        if (result.code !== 0 || !/^ {2}(svc \S+|\w)/m.test(result.stdout) || lines(result.stdout).length > 40) failures.push(`svc ${args.join(' ')} → ${explain(result)}`);
      }
    });
    expect(failures).toEqual([]);
    const admin = await runSvc(['admin', '--help'], { home });
    expect(admin.stdout).toMatch(/^ {2}svc admin keys create +Issue a new API key/m);
    expect(admin.stdout).not.toMatch(/command not found/);
  }, 60_000);
});

describe('usage errors', () => {
  it('show the command’s short usage, not every flag', async () => {
    const unknown = await runSvc(['api', 'chat', 'completions', '--bogus'], { home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('svc api chat completions: Unsupported option name ("--bogus").\nUsage: svc api chat completions [flags]\nSee `svc api chat completions --help`.\n');
    const missing = await runSvc(['admin', 'keys', 'create', '--developer', 'dev_x'], { home });
    expect(missing.stderr).toMatch(/Usage: svc admin keys create --developer <developer> --role <role> \[flags\]\n/);
    const field = await runSvc(['api', 'developer', 'apps', 'create'], { home, env: { SVC_API_KEY: 'svc_live_x' } });
    expect(field.stderr).toBe('svc api developer apps create: Missing required field --name (or "name" in --json).\nUsage: svc api developer apps create [flags]\nSee `svc api developer apps create --help`.\n');
    for (const result of [unknown, missing, field]) expect(lines(result.stderr).length).toBeLessThanOrEqual(3);
  });
});
