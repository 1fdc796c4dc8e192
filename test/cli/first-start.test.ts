import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { explain, freePort, readConfig, removeTempDirs, runSvc, startServe, tempDir, type ServeProcess } from '../helpers/cli.js';

/**
 * The first start of a server creates the owner's keys, which nothing can show again: it says
 * where the admin key is saved and which command issues a new one, for `svc serve` and for the
 * bundled server `svc chat` starts.
 */

const running: ServeProcess[] = [];
afterEach(() => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
});
afterAll(removeTempDirs);

const NOTICE =
  /The owner's admin key (?:is saved in (\S+)|was not saved \((\S+) already holds a key\))\. Lost it\? `svc admin keys create --developer (dev_[0-9a-f]{32}) --role admin( --db \S+)?`, run where the database is, issues a new one\./;

async function serve(args: string[], home: string) {
  const started = await startServe(args, { home });
  running.push(started);
  return started;
}

describe('the first start says how to get a new owner key', () => {
  it('svc serve on the default database: no --db in the command; a later start says nothing', async () => {
    const home = tempDir();
    const first = await serve(['--port', '0'], home);
    const notice = NOTICE.exec(first.stdout());
    expect(notice, first.stdout()).not.toBeNull();
    expect(notice?.[1]).toBe(join(home, 'config.json'));
    expect(notice?.[4]).toBeUndefined();
    await first.stop();
    const listed = await runSvc(['admin', 'developers', 'list'], { home });
    expect(listed.json().data[0].developer_id).toBe(notice?.[3]);

    const again = await serve(['--port', '0'], home);
    expect(again.stdout()).not.toMatch(NOTICE);
    await again.stop();
  });

  it('svc serve when a key was already saved: says the new one was not, and still how to get one', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ api_key: `svc_live_${'D'.repeat(40)}` }));
    const db = join(tempDir(), 'server.db');
    const first = await serve(['--port', '0', '--db', db], home);
    const notice = NOTICE.exec(first.stdout());
    expect(notice, first.stdout()).not.toBeNull();
    expect(notice?.[2]).toBe(join(home, 'config.json'));
    expect(notice?.[4]).toBe(` --db ${db}`);
    await first.stop();
  });

  it('svc chat starting the bundled server says it on stderr', async () => {
    const home = tempDir();
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runSvc(['chat', '--api-url', url], { home, input: 'Anyone there?' });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stderr).toContain(`no server answered at ${url}; started the bundled one`);
    const notice = NOTICE.exec(result.stderr);
    expect(notice, result.stderr).not.toBeNull();
    expect(notice?.[1]).toBe(join(home, 'config.json'));
    expect(readConfig(home)).toMatchObject({ api_key: expect.stringMatching(/^svc_live_/) });
    // The key itself is never printed by the chat.
    expect(result.stderr).not.toContain(readConfig(home)?.api_key as string);
  });
});
