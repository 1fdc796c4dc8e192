import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, runSvc, tempDir, useApiCli } from '../helpers/cli.js';
import { runSvcOnTerminal } from '../helpers/pty.js';

/** `svc api` at `gh api`'s level: raw paths, -X, -H, --input, -i, --verbose, --jq, and errors for people. */
const cli = useApiCli();

/** A server that answers every request with what it received, to see exactly what svc sent. */
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
const echo = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    res.writeHead(req.url === '/api/v1/text' ? 200 : 201, { 'content-type': 'application/json', 'x-request-id': 'req_echo' });
    res.end(req.url === '/api/v1/text' ? 'plain words' : JSON.stringify({ method: req.method, url: req.url }));
  });
});
let echoUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

const toEcho = (args: string[], input?: string) =>
  runSvc(['api', ...args, '--api-url', echoUrl], { home: tempDir(), env: { SVC_API_KEY: cli.server.liveKey }, ...(input !== undefined ? { input } : {}) });

describe('svc api <path>', () => {
  it('GETs a path under /api/v1 and prints its JSON', async () => {
    const result = await cli.run(['/models']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.json().data.map((m: { id: string }) => m.id)).toContain('local/echo');
  });

  it('takes a path the API serves outside /api/v1 as it is, with its query', async () => {
    const health = await cli.run(['/health']);
    expect(health.json()).toMatchObject({ status: 'ok' });
    await toEcho(['/api/v1/models?limit=2']);
    await toEcho(['/.well-known/jwks.json']);
    expect(seen.slice(-2).map((r) => r.url)).toEqual(['/api/v1/models?limit=2', '/.well-known/jwks.json']);
  });

  it('--input FILE sends the body and POSTs; --input - reads stdin; -X picks the method', async () => {
    const file = join(tempDir(), 'app.json');
    writeFileSync(file, JSON.stringify({ name: 'raw from a file' }));
    const created = await cli.run(['/developer/apps', '--input', file]);
    expect(created.code, explain(created)).toBe(0);
    const app = created.json();
    expect(app.name).toBe('raw from a file');
    const renamed = await runSvc(['api', `/developer/apps/${app.app_uuid}`, '-X', 'patch', '--input', '-', '--api-url', cli.server.url], {
      home: tempDir(),
      env: { SVC_API_KEY: cli.server.liveKey },
      input: JSON.stringify({ name: 'renamed raw' }),
    });
    expect(renamed.json().name).toBe('renamed raw');
    const deleted = await cli.run([`/developer/apps/${app.app_uuid}`, '-X', 'DELETE']);
    expect(deleted.code, explain(deleted)).toBe(0);
    const gone = await cli.run([`/developer/apps/${app.app_uuid}`]);
    expect(gone.code).toBe(1);
    expect(gone.errorJson().error.type).toBe('not_found');
  });

  it('-H adds headers (repeatable, and a given content-type wins)', async () => {
    const result = await toEcho(['/things', '-X', 'POST', '-H', 'X-Trace: abc', '-H', 'content-type:text/plain', '--input', '-'], 'hello');
    expect(result.code, explain(result)).toBe(0);
    const request = seen.at(-1);
    expect(request).toMatchObject({ method: 'POST', url: '/api/v1/things', body: 'hello' });
    expect(request?.headers).toMatchObject({ 'x-trace': 'abc', 'content-type': 'text/plain', 'x-api-key': cli.server.liveKey });
  });

  it('prints a body that is not JSON as it came', async () => {
    const result = await toEcho(['/text']);
    expect(result.stdout).toBe('plain words\n');
  });

  it('refuses a method, a header or a path it cannot send (exit 2, the short usage)', async () => {
    for (const args of [['/models', '-X', 'BREW'], ['/models', '-H', 'no colon'], ['/models', '--input', '/no/such/file']]) {
      const result = await cli.run(args);
      expect(result.code, explain(result)).toBe(2);
      expect(result.stderr).toMatch(/^svc api: .+\nUsage: svc api <path> \[flags\]\nSee `svc api --help`\.\n$/);
    }
  });
});

describe('-i, --verbose', () => {
  it('-i prints the status line and headers, request id included, then the body', async () => {
    const result = await cli.run(['/health', '-i']);
    expect(result.code, explain(result)).toBe(0);
    const [head, body] = result.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(head).toMatch(/^x-request-id: req_\w+$/m);
    expect(JSON.parse(body as string)).toMatchObject({ status: 'ok' });
  });

  it('-i works on the generated commands, and on errors (the head on stdout, the error on stderr)', async () => {
    const list = await cli.run(['developer', 'apps', 'list', '-i']);
    expect(list.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(.+\n)*x-request-id: req_\w+\n(.+\n)*\n\{"data":/);
    const missing = await cli.run(['developer', 'apps', 'get', '00000000-0000-4000-8000-000000000000', '-i']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\n/);
    expect(missing.errorJson().error.code).toBe('app_not_found');
  });

  it('--verbose shows the request and the answer on stderr, the key redacted', async () => {
    const result = await cli.run(['/key', '--verbose']);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stderr).toMatch(/^> GET \/api\/v1\/key HTTP\/1\.1\n/);
    expect(result.stderr).toMatch(/^> x-api-key: svc_live_\w{4}…\w{4}$/m);
    expect(result.stderr).toMatch(/^< HTTP\/1\.1 200 OK$/m);
    expect(result.stderr).toMatch(/^< x-request-id: req_\w+$/m);
    expect(result.stderr).not.toContain(cli.server.liveKey);
    expect(result.json().data).toBeDefined();
    const posted = await toEcho(['/things', '--verbose', '--input', '-'], '{"a":1}');
    expect(posted.stderr).toMatch(/^> POST \/api\/v1\/things HTTP\/1\.1\n(> .+\n)*>\n\{"a":1\}\n/);
  });

  it('where an operation has a field called include, --include is the field and -i the head', async () => {
    const result = await cli.run(['responses', 'get', 'resp_nope', '-i', '--include', 'reasoning.encrypted_content']);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\n/);
    const help = await cli.run(['responses', 'get', '--help']);
    expect(help.stdout).toMatch(/^ {2}-i +Print the status line/m);
    expect(help.stdout).toMatch(/^ {2}--include <include> +/m);
  });

  it('is refused with --paginate (one request to show)', async () => {
    const result = await cli.run(['developer', 'apps', 'list', '--paginate', '-i']);
    expect(result.code, explain(result)).toBe(2);
  });
});

describe('--jq (jq itself, compiled to WebAssembly)', () => {
  it('filters the answer: strings raw, values as compact JSON when piped', async () => {
    const ids = await cli.run(['/models', '--jq', '.data[].id']);
    expect(ids.code, explain(ids)).toBe(0);
    expect(ids.stdout.split('\n')).toContain('local/echo');
    expect(ids.stdout).not.toContain('"');
    const objects = await cli.run(['models', 'list', '--jq', '.data[] | {id}']);
    expect(objects.stdout.split('\n')[0]).toMatch(/^\{"id":"[^"]+"\}$/);
  });

  it('is real jq: builtins a home-made subset lacks', async () => {
    const result = await cli.run(['/models', '--jq', '[.data[].id | select(startswith("local/"))] | sort | @csv']);
    expect(result.stdout).toMatch(/^"local\/echo"(,"local\/[\w-]+")*\n$/);
    const reduced = await cli.run(['/health', '--jq', 'reduce (to_entries[] | .key) as $k (0; . + 1) | tostring | ascii_downcase']);
    expect(reduced.stdout).toMatch(/^\d+\n$/);
    const path = await cli.run(['/health', '--jq', '[paths] | length, ($__loc__ | .line)']);
    expect(path.stdout).toMatch(/^\d+\n1\n$/);
  });

  it('applies to each item of --paginate and to the generated commands', async () => {
    const names = await cli.run(['developer', 'apps', 'list', '--paginate', '--limit', '1', '--jq', '.name']);
    expect(names.code, explain(names)).toBe(0);
    expect(names.stdout.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(names.stdout).toContain('Default app');
  });

  it('a jq syntax error exits 2, an error while running exits 1, with jq’s own message', async () => {
    const bad = await cli.run(['/health', '--jq', '.status |||']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^svc: --jq: jq: error: syntax error/);
    const failing = await cli.run(['/health', '--jq', '.status.nope']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/Cannot index string with string \("nope"\)/);
  });
});

describe('errors and hints for people', () => {
  it('an API error on a terminal is one human line (message, status, code, request id)', async () => {
    const result = await runSvcOnTerminal(['api', 'developer', 'apps', 'get', '00000000-0000-4000-8000-000000000000', '--api-url', cli.server.url], {
      home: tempDir(),
      env: { SVC_API_KEY: cli.server.liveKey },
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/^svc: No app 00000000-0000-4000-8000-000000000000\. \(HTTP 404 app_not_found, request req_\w+\)\n$/);
  });

  it('an unreachable server on a terminal is one line too (exit 3)', async () => {
    const result = await runSvcOnTerminal(['api', '/models', '--api-url', 'http://127.0.0.1:1'], { home: tempDir(), env: { SVC_API_KEY: cli.server.liveKey } });
    expect(result.code).toBe(3);
    expect(result.output).toMatch(/^svc: cannot reach the server at http:\/\/127\.0\.0\.1:1 .*svc serve.*\n$/);
  });

  it('being logged out is a one-line hint, not a usage line', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', cli.server.url], { home: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('svc: Not logged in: run `svc auth login --with-token` (or `svc auth login` to paste a key), or set SVC_API_KEY.\n');
  });
});
