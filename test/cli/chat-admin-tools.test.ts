import { describe, expect, it } from 'vitest';
import { explain, runSvc, useApiCli, type RunResult } from '../helpers/cli.js';

/**
 * `svc chat --admin-tools` without a terminal, against the real test server: `local/echo` calls
 * the tool named on a `!tool NAME {json}` line and answers with what the tool returned.
 */

/** A test server for the file, and a throwaway SVC_HOME (the chat's memory lives there). */
const cli = useApiCli();

/** `svc chat <args…>` with `question` on stdin, against the test server with its live key. */
function pipe(question: string, args: string[]): Promise<RunResult> {
  return runSvc(['chat', '--model', 'local/echo', ...args, '--api-url', cli.server.url], {
    home: cli.home,
    env: { SVC_API_KEY: cli.server.liveKey },
    input: question,
  });
}

const chat = (question: string, args: string[] = []) => pipe(question, ['--admin-tools', ...args]);

/** The JSON the tool returned, out of local/echo's answer. */
function toolResult(result: RunResult, name: string): any {
  expect(result.code, explain(result)).toBe(0);
  const intro = `The tool \`${name}\` returned:\n\n`;
  expect(result.stdout, explain(result)).toContain(intro);
  return JSON.parse(result.stdout.slice(result.stdout.indexOf(intro) + intro.length));
}

async function appNames(): Promise<string[]> {
  const list = await cli.server.call('GET', '/api/v1/developer/apps');
  return list.body.data.map((app: { name: string }) => app.name);
}

describe('svc chat --admin-tools (pipe mode)', () => {
  it('a read-only tool runs at once and the model reads its JSON', async () => {
    const result = await chat('!tool svc_api_developer_apps_list {}');
    const answer = toolResult(result, 'svc_api_developer_apps_list');
    expect(answer.data.map((app: { app_uuid: string }) => app.app_uuid)).toContain(cli.server.appUuid);
    expect(result.stderr).toBe('');
  });

  it('path arguments and query fields reach the API', async () => {
    const get = await chat(`!tool svc_api_developer_apps_get {"app_uuid":"${cli.server.appUuid}"}`);
    expect(toolResult(get, 'svc_api_developer_apps_get')).toMatchObject({ app_uuid: cli.server.appUuid });
    // The default app has a live and a test key: `limit` 1 shows one of them.
    const keys = await chat(`!tool svc_api_developer_apps_api-keys_list {"app_uuid":"${cli.server.appUuid}","limit":1}`);
    expect(toolResult(keys, 'svc_api_developer_apps_api-keys_list').data).toHaveLength(1);
  });

  it('a tool that writes is declined without --yes, and the API is not called', async () => {
    const before = await appNames();
    const result = await chat('!tool svc_api_developer_apps_create {"name":"Made by the model"}');
    expect(toolResult(result, 'svc_api_developer_apps_create')).toEqual({ error: 'The user declined this tool call.' });
    expect(result.stderr).toContain('svc: declined svc_api_developer_apps_create (it writes; pass --yes to allow)');
    expect(await appNames()).toEqual(before);
  });

  it('with --yes a tool that writes runs', async () => {
    const result = await chat('!tool svc_api_developer_apps_create {"name":"Made with --yes"}', ['--yes']);
    expect(toolResult(result, 'svc_api_developer_apps_create')).toMatchObject({ name: 'Made with --yes' });
    expect(await appNames()).toContain('Made with --yes');
  });

  it('an API error comes back to the model as JSON, and the chat goes on', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const result = await chat(`!tool svc_api_developer_apps_get {"app_uuid":"${missing}"}`);
    expect(toolResult(result, 'svc_api_developer_apps_get')).toMatchObject({ status: 404, error: { type: expect.any(String), message: expect.any(String) } });
  });

  it('a missing path argument is an error result, not a call to another URL', async () => {
    const result = await chat('!tool svc_api_developer_apps_get {}');
    expect(toolResult(result, 'svc_api_developer_apps_get')).toEqual({
      error: { message: 'Missing the path argument app_uuid.', type: 'invalid_arguments' },
    });
  });

  it('without --admin-tools the API tools are not offered', async () => {
    const result = await pipe('!tool svc_api_developer_apps_list {}', []);
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toContain('you said:\n\n!tool svc_api_developer_apps_list {}');
  });

  it('cannot go with --no-tools (exit 2)', async () => {
    const result = await chat('hello', ['--no-tools']);
    expect(result.code, explain(result)).toBe(2);
    expect(result.stderr).toContain('--admin-tools');
  });
});
