import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explain, runSvc, tempDir, useApiCli, type RunResult } from '../helpers/cli.js';

const cli = useApiCli();
const { home } = cli;

/** `svc api <args…>` against the test server with its live key. */
function api(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return cli.run(args, env);
}

/** Exit 1, nothing on stdout, and stderr exactly one OpenAI-shaped error object. */
function expectApiError(result: RunResult, expected: { type?: string; code?: string; param?: string | null }) {
  expect(result.code, explain(result)).toBe(1);
  expect(result.stdout).toBe('');
  const body = result.errorJson();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error).toMatchObject(expected);
  return body.error;
}

/** Exit 2 (usage error), nothing on stdout, and a message on stderr. */
function expectUsageError(result: RunResult, message: RegExp | string) {
  expect(result.code, explain(result)).toBe(2);
  expect(result.stdout).toBe('');
  if (typeof message === 'string') expect(result.stderr).toContain(message);
  else expect(result.stderr).toMatch(message);
}

describe('API errors (exit 1, JSON on stderr)', () => {
  it('an unknown app is not_found', async () => {
    const uuid = randomUUID();
    const error = expectApiError(await api(['developer', 'apps', 'get', uuid]), { type: 'not_found' });
    expect(error.message).toContain(uuid);
  });

  it('a server 400 names the field in param', async () => {
    expectApiError(await api(['developer', 'apps', 'list', '--limit', '0']), { type: 'invalid_request_error', param: 'limit' });
    expectApiError(await api(['developer', 'apps', 'list', '--limit', '101']), { type: 'invalid_request_error', param: 'limit' });
  });

  it('a 409 is a conflict whose message says the current state', async () => {
    const error = expectApiError(await api(['subscriptions', 'cancel']), { type: 'conflict' });
    expect(error.message).toContain('no subscription');
  });

  it('a key the server does not know is an authentication_error', async () => {
    expectApiError(await api(['developer', 'apps', 'list'], { SVC_API_KEY: `svc_live_${'A'.repeat(40)}` }), {
      type: 'authentication_error',
    });
  });

  it('a server that answers 200 with something other than JSON is an invalid_response', async () => {
    const page = createServer((_req, res) => res.end('<html>login portal</html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
      // Exit 1 as the shell sees it: through the real binary.
      const result = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', url], {
        home,
        env: { SVC_API_KEY: cli.server.liveKey },
        spawn: true,
      });
      expect(expectApiError(result, { type: 'invalid_response' }).message).toContain('not JSON');
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
  });
});

describe('usage errors (exit 2)', () => {
  it('a missing required field names its flag', async () => {
    expectUsageError(await api(['developer', 'apps', 'create']), '--name');
    expectUsageError(await api(['developer', 'apps', 'users', 'top-up', cli.server.appUuid, `0x${'a'.repeat(40)}`]), '--credits');
  });

  it('a missing path argument', async () => {
    expectUsageError(await api(['developer', 'apps', 'get']), /./);
  });

  it('--json that is not JSON', async () => {
    expectUsageError(await api(['developer', 'apps', 'create', '--json', 'not json']), '--json');
  });

  it.each(['[1]', '"name"', 'null', '42'])('--json %s that is not an object', async (json) => {
    expectUsageError(await api(['developer', 'apps', 'create', '--json', json]), '--json');
  });

  it('a number flag given text', async () => {
    expectUsageError(await api(['developer', 'apps', 'create', '--name', 'x', '--default-user-credits', 'abc']), '--default-user-credits');
    expectUsageError(await api(['developer', 'apps', 'users', 'top-up', cli.server.appUuid, `0x${'a'.repeat(40)}`, '--credits', '']), '--credits');
  });

  it('a negative number after a flag reaches the server', async () => {
    const result = await api(['developer', 'apps', 'users', 'top-up', cli.server.appUuid, `0x${'b'.repeat(40)}`, '--credits', '-5']);
    expectApiError(result, { type: 'invalid_request_error', param: 'credits' });
  });

  it('a JSON flag given something that is neither JSON nor a list', async () => {
    expectUsageError(await api(['chat', 'completions', '--model', 'local/echo', '--messages', 'hello']), '--messages');
  });

  it('no API key configured mentions `svc auth login`', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', cli.server.url], { home });
    expectUsageError(result, 'svc auth login');
  });

  it('an --api-url that is not a URL', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', 'not a url'], {
      home,
      env: { SVC_API_KEY: cli.server.liveKey },
    });
    expectUsageError(result, '--api-url');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('an SVC_API_URL that is not a URL', async () => {
    const result = await runSvc(['api', 'developer', 'apps', 'list'], {
      home,
      env: { SVC_API_KEY: cli.server.liveKey, SVC_API_URL: 'not a url' },
    });
    expectUsageError(result, 'SVC_API_URL');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('an api_url in config.json that is not a URL', async () => {
    const configHome = tempDir();
    writeFileSync(join(configHome, 'config.json'), JSON.stringify({ api_key: cli.server.liveKey, api_url: 'not a url' }));
    const result = await runSvc(['api', 'developer', 'apps', 'list'], { home: configHome });
    expectUsageError(result, join(configHome, 'config.json'));
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('unreachable server (exit 3)', () => {
  it('says so as JSON on stderr and points to `svc serve`', async () => {
    // Exit 3 as the shell sees it: through the real binary.
    const result = await runSvc(['api', 'developer', 'apps', 'list', '--api-url', 'http://127.0.0.1:1'], {
      home,
      env: { SVC_API_KEY: cli.server.liveKey },
      spawn: true,
    });
    expect(result.code, explain(result)).toBe(3);
    expect(result.stdout).toBe('');
    const { error } = result.errorJson();
    expect(error.type).toBe('connection_error');
    expect(error.message).toContain('svc serve');
    expect(error.message).toContain('http://127.0.0.1:1');
  });
});
