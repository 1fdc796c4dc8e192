import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explain, runSvc, tempDir, useApiCli } from '../helpers/cli.js';

/** `svc` as a script author meets it: help that names values, one good "did you mean", bodies from files, every page. */
const cli = useApiCli();

describe('help', () => {
  it('names the value of every option, never #0, and aligns them', async () => {
    const docs = await runSvc(['docs'], { home: tempDir() });
    expect(docs.code, explain(docs)).toBe(0);
    expect(docs.stdout).not.toContain('#0');
    const upgrade = await runSvc(['api', 'subscriptions', 'upgrade', '--help'], { home: tempDir() });
    expect(upgrade.stdout).toMatchSnapshot();
    const serve = await runSvc(['serve', '--help'], { home: tempDir() });
    expect(serve.stdout).toContain('--payments <stripe|sandbox|off>');
    expect(serve.stdout).not.toContain('--api-url');
    const create = await runSvc(['api', 'developer', 'apps', 'create', '--help'], { home: tempDir() });
    expect(create.stdout).toMatch(/--name <name> +App name; required/);
    expect(create.stdout).toMatch(/--default-user-credits <number>/);
    expect(create.stdout).toMatch(/--app-type <standard\|pooled_api>/);
  });

  it('`svc api` lists the groups, `svc api <group>` its commands, exit 0', async () => {
    const groups = await runSvc(['api'], { home: tempDir() });
    expect(groups.code).toBe(0);
    expect(groups.stdout).toMatch(/^ {2}developer +A developer's apps/m);
    expect(groups.stdout).toMatch(/^ {2}messages +The Anthropic Messages API/m);
    const help = await runSvc(['api', '--help'], { home: tempDir() });
    expect(help.stdout).toBe(groups.stdout);
    const group = await runSvc(['api', 'credits', '--help'], { home: tempDir() });
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/svc api credits claim-daily +Claim the daily credits/);
  });
});

describe('mistakes', () => {
  it('an unknown command suggests the closest few, best first; exit 2', async () => {
    const typo = await runSvc(['api', 'developer', 'aps', 'list'], { home: tempDir() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Did you mean:\n {2}svc api developer apps list\n/);
    const top = await runSvc(['chta'], { home: tempDir() });
    expect(top.stderr).toMatch(/Did you mean:\n {2}svc chat\n/);
  });

  it('a missing required option or argument is named', async () => {
    const issue = await runSvc(['admin', 'keys', 'create', '--developer', 'dev_x'], { home: tempDir() });
    expect(issue.code).toBe(2);
    expect(issue.stderr).toMatch(/^svc admin keys create: missing --role <role>\./);
    const get = await runSvc(['api', 'developer', 'apps', 'get'], { home: tempDir() });
    expect(get.stderr).toMatch(/missing its arguments\. Usage: svc api developer apps get <app-uuid>/);
  });
});

describe('bodies and pages', () => {
  it('--json @file and --json - (stdin) give the body; flags still win', async () => {
    const file = join(tempDir(), 'app.json');
    writeFileSync(file, JSON.stringify({ name: 'From a file', default_user_credits: 2 }));
    const fromFile = await cli.run(['developer', 'apps', 'create', '--json', `@${file}`, '--default-user-credits', '3']);
    expect(fromFile.code, explain(fromFile)).toBe(0);
    expect(fromFile.json()).toMatchObject({ name: 'From a file', default_user_credits: 3 });
    const fromStdin = await runSvc(['api', 'developer', 'apps', 'create', '--json', '-', '--api-url', cli.server.url], {
      home: cli.home,
      env: { SVC_API_KEY: cli.server.liveKey },
      input: JSON.stringify({ name: 'From stdin' }),
    });
    expect(fromStdin.code, explain(fromStdin)).toBe(0);
    expect(fromStdin.json()).toMatchObject({ name: 'From stdin' });
    const missing = await cli.run(['developer', 'apps', 'create', '--json', '@/no/such/file.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the file \(ENOENT\)/);
  });

  it('--paginate walks every page: one JSON line per item when piped', async () => {
    for (let i = 0; i < 5; i++) expect((await cli.run(['developer', 'apps', 'create', '--name', `paged ${i}`])).code).toBe(0);
    const all = await cli.run(['developer', 'apps', 'list', '--paginate', '--limit', '2']);
    expect(all.code, explain(all)).toBe(0);
    const lines = all.stdout.trim().split('\n').map((line) => JSON.parse(line) as { app_uuid: string });
    const total = (await cli.run(['developer', 'apps', 'list'])).json().total as number;
    expect(lines).toHaveLength(total);
    expect(new Set(lines.map((app) => app.app_uuid)).size).toBe(total);
    const models = await cli.run(['models', 'list', '--paginate', '--page-size', '1']);
    expect(models.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(2);
  });
});
