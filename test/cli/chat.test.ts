import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, explain, freePort, readConfig, removeTempDirs, runSvc, tempDir, type RunResult } from '../helpers/cli.js';
import { openRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** `svc chat` with stdin not a terminal: the question from stdin, the answer as plain text on stdout. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});

/** `svc chat <args…> --api-url <url>` with `input` on stdin, against the test server by default. */
function pipe(input: string, options: { home?: string; args?: string[]; url?: string; key?: string | null } = {}): Promise<RunResult> {
  const key = options.key === undefined ? server.liveKey : options.key;
  return runSvc(['chat', ...(options.args ?? []), '--api-url', options.url ?? server.url], {
    home: options.home ?? tempDir(),
    env: key ? { SVC_API_KEY: key } : {},
    input,
  });
}

/** Exit 0 and stdout `expected`, with a readable failure otherwise. */
function expectAnswer(result: RunResult, expected: string | RegExp) {
  expect(result.code, explain(result)).toBe(0);
  if (typeof expected === 'string') expect(result.stdout).toContain(expected);
  else expect(result.stdout).toMatch(expected);
}

describe('svc chat without a terminal (pipe mode)', () => {
  it('streams the answer to stdout as plain text, and exits 0', async () => {
    const result = await pipe('What is 2+2?\n');
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toBe('**Echo** — you said:\n\nWhat is 2+2?\n');
    expect(result.stderr).toBe('');
  });

  it('an empty stdin is a usage error (exit 2)', async () => {
    const result = await pipe('  \n');
    expect(result.code, explain(result)).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No question on stdin');
  });

  it('a server that cannot be reached at a non-local URL exits 3', async () => {
    const result = await pipe('hello?', { url: 'http://example.invalid:1' });
    expect(result.code, explain(result)).toBe(3);
    expect(result.stdout).toBe('');
  });

  it('with no server at a local URL, starts the bundled one and answers', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await pipe('Is anybody home?', { url, key: null });
    expectAnswer(result, 'you said:\n\nIs anybody home?');
    expect(result.stderr).toContain(`no server answered at ${url}; started the bundled one`);
  });

  it('logs the bundled server it starts to ~/.svc/server.log, never to the screen', async () => {
    const home = tempDir();
    const url = `http://127.0.0.1:${await freePort()}`;
    // stdin stays open: the chat (and its server) wait for the question while the test acts.
    const child = spawn(process.execPath, [BIN, 'chat', '--api-url', url], { cwd: tmpdir(), env: childEnv(home), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      for (let i = 0; i < 500 && !stderr.includes('started the bundled one'); i++) await once(child.stderr, 'data');
      expect(stderr).toContain(`started the bundled one (data in ${home}, its log in ${join(home, 'server.log')})`);
      // Something the server logs: a request whose client hangs up halfway through its body, once
      // the server has taken it (it has answered 100-continue).
      const { req, response } = openRequest(url, 'POST', '/api/v1/chat/completions', {
        'x-api-key': String(readConfig(home)?.api_key),
        'content-type': 'application/json',
        'content-length': 1000,
        expect: '100-continue',
      });
      response.catch(() => {});
      await once(req, 'continue');
      req.write('{"model":"local/echo",');
      req.destroy();
      const log = () => (existsSync(join(home, 'server.log')) ? readFileSync(join(home, 'server.log'), 'utf8') : '');
      for (let i = 0; i < 500 && !log().includes('client closed the connection'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(log()).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[req_\w+\] client closed the connection mid-request\n$/);
      child.stdin.end('Is anybody home?');
      expect(await exited, stderr).toBe(0);
      expect(stdout).toContain('you said:\n\nIs anybody home?');
      expect(stderr).not.toContain('client closed');
    } finally {
      child.kill();
    }
  });

  it('remembers: a later run finds an earlier message with search_memory', async () => {
    const home = tempDir();
    expectAnswer(await pipe('My cat is called Miso and she loves tuna.', { home }), 'Miso');
    const found = await pipe('!tool search_memory {"query":"what is my cat called"}', { home });
    expectAnswer(found, 'The tool `search_memory` returned:');
    expect(found.stdout).toContain('My cat is called Miso and she loves tuna.');
  });

  it('a tool that writes is declined without --yes, and runs with it', async () => {
    const home = tempDir();
    const save = '!tool memory_vault_save {"content":"my favourite colour is green"}';
    const declined = await pipe(save, { home });
    expectAnswer(declined, 'The user declined this tool call.');
    expect(declined.stderr).toContain('svc: declined memory_vault_save (it writes; pass --yes to allow)');

    const allowed = await pipe(save, { home, args: ['--yes'] });
    expectAnswer(allowed, /"saved":\s*true/);
    expect(allowed.stderr).toBe('');

    const vault = await pipe('!tool memory_vault_search {"query":"favourite colour"}', { home });
    expectAnswer(vault, 'my favourite colour is green');
    expect(vault.stdout.match(/my favourite colour is green/g)).toHaveLength(1);
  });
});

describe('svc chat --max-spend', () => {
  it('refuses to start on a key that cannot create the capped key, rather than run uncapped (exit 2)', async () => {
    const { createOwnerApp } = await import('../helpers/api.js');
    const app = await createOwnerApp(server, { name: 'max-spend refusal' });
    const inference = (await server.server.services.apiKeys.create(app.appUuid, { name: 'inference', is_test: false, role: 'inference' })).secret;
    const result = await pipe('hello\n', { args: ['--max-spend', '5'], key: inference });
    expect(result.code, explain(result)).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('svc: --max-spend: This is an inference key: only an admin key can create the capped key --max-spend runs on.');
  });

  it('a cap that is not a positive number of credits is a usage error, before anything is created', async () => {
    for (const bad of ['0', '-3', 'five', '1e3']) {
      const result = await pipe('hello\n', { args: ['--max-spend', bad] });
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toContain('--max-spend takes a number of credits above 0');
    }
    const keys = (await server.call('GET', `/api/v1/developer/apps/${server.appUuid}/api-keys`)).body as { data: { name: string }[] };
    expect(keys.data.some((key) => key.name.startsWith('svc chat --max-spend'))).toBe(false);
  });

  it('in pipe mode too, the answer is spent through the capped key, which is deleted afterwards', async () => {
    const result = await pipe('What is 2+2?\n', { args: ['--max-spend', '5'] });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toBe('**Echo** — you said:\n\nWhat is 2+2?\n');
    expect(result.stderr).toMatch(/this chat spends through a key of its own \(key_\w+\) capped at 5 credits by the server/);
    const keys = (await server.call('GET', `/api/v1/developer/apps/${server.appUuid}/api-keys`)).body as { data: { name: string }[] };
    expect(keys.data.some((key) => key.name.startsWith('svc chat --max-spend'))).toBe(false);
  });
});
