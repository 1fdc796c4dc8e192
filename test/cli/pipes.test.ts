import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, runSvcIntoClosedPipe, tempDir, useApiCli } from '../helpers/cli.js';

/** `svc … | head`: a reader that goes away ends every command quietly, exit 0, nothing on stderr. */
const cli = useApiCli();
afterAll(() => removeTempDirs());

describe('a closed stdout', () => {
  const cases: [string, string[], string?][] = [
    ['svc docs', ['docs']],
    ['svc docs --json', ['docs', '--json']],
    ['svc api openapi (one long line)', ['api', 'openapi']],
    ['a streamed answer', ['api', 'chat', 'completions', '--model', 'local/echo', '--messages', JSON.stringify([{ role: 'user', content: 'word '.repeat(4000) }]), '--stream']],
    ['svc chat from a pipe', ['chat', '--no-tools'], `${'a long question '.repeat(3000)}\n`],
  ];
  for (const [name, args, input] of cases) {
    it(`${name}: exit 0, nothing on stderr`, async () => {
      const result = await runSvcIntoClosedPipe(args[0] === 'docs' ? args : [...args, '--api-url', cli.server.url], {
        home: tempDir(),
        env: { SVC_API_KEY: cli.server.liveKey },
        ...(input ? { input } : {}),
      });
      expect(result.read).toBeGreaterThan(0);
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    });
  }
});
