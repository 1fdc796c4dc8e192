import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';

afterAll(removeTempDirs);

/** `svc serve --providers FILE` with a file it cannot serve: one line that says where and why, and a usage exit. */
async function serveWith(lines: string[]) {
  assertBuilt();
  const file = join(tempDir(), 'providers.json');
  writeFileSync(file, lines.join('\n'));
  const run = await runSvc(['serve', '--port', '0', '--db', join(tempDir(), 'server.db'), '--providers', file], { home: tempDir(), env: { ACME_KEY: 'k' } });
  expect(run.code, explain(run)).toBe(2);
  expect(run.stdout, explain(run)).toBe('');
  // One line, never a stack trace.
  expect(run.stderr.split('\n'), explain(run)).toHaveLength(2);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  return { file, stderr: run.stderr };
}

describe('svc serve --providers', () => {
  it('refuses a model with no price in the file or the catalog, naming the file, line, column and model', async () => {
    const { file, stderr } = await serveWith([
      '{"providers": [',
      '  {"id": "acme", "type": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "ACME_KEY",',
      '   "models": [',
      '      {"id": "claude-sonnet-4-5"},',
      '      {"id": "fast-1", "context_length": 8192}',
      '   ]}',
      ']}',
    ]);
    expect(stderr).toBe(
      `svc: cannot start the server: ${file}:5:7: model 'acme/fast-1' has no price in the file and none in the catalog; add input_price and output_price\n`,
    );
  });

  it('names the line and column of a JSON syntax error, not a character position', async () => {
    const { file, stderr } = await serveWith(['{"providers": [', '  {"id": "acme",}', ']}']);
    expect(stderr).toBe(`svc: cannot start the server: ${file}:2:17: not valid JSON: Expected double-quoted property name\n`);
  });

  it('names the line of a bad field', async () => {
    const { file, stderr } = await serveWith(['{"providers": [', '  {"id": "acme", "type": "grpc", "base_url": "http://127.0.0.1:9/v1", "models": [{"id": "m"}]}', ']}']);
    expect(stderr).toMatch(new RegExp(`^svc: cannot start the server: ${file.replaceAll('.', '\\.')}:2:26: providers\\.0\\.type: `));
  });
});
