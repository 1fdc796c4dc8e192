import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../../test/helpers/cli.js';
import { hasTmux, startProgramInTerminal } from '../../../test/helpers/tmux.js';
import { terminalWidthNow } from './terminal-width.js';

afterAll(removeTempDirs);

/**
 * What keepScrollback's erase rests on, in a real terminal: after a resize and before node has
 * handled its SIGWINCH (the event loop busy, as under load), `terminalWidthNow` reads the new width
 * while node's own `columns` still holds the old one.
 */
describe.skipIf(!hasTmux)('terminalWidthNow in a real terminal (tmux)', () => {
  it('reads the width the terminal took before the program has heard of it', async () => {
    const dir = tempDir('svc-terminal-width-');
    const module = join(dir, 'terminal-width.mjs');
    const source = readFileSync(join(import.meta.dirname, 'terminal-width.ts'), 'utf8');
    writeFileSync(module, transformSync(source, { loader: 'ts', format: 'esm' }).code);
    const [ready, go, result] = [join(dir, 'ready'), join(dir, 'go'), join(dir, 'result.json')];
    // The program holds its event loop until told to go: no signal of the resize can reach it.
    const program = `
      import { existsSync, writeFileSync } from 'node:fs';
      import { terminalWidthNow } from ${JSON.stringify(module)};
      const heardBefore = process.stdout.columns;
      writeFileSync(${JSON.stringify(ready)}, '');
      while (!existsSync(${JSON.stringify(go)})) {}
      writeFileSync(${JSON.stringify(result)}, JSON.stringify({ heardBefore, heard: process.stdout.columns, now: terminalWidthNow(process.stdout) }));
    `;
    const session = startProgramInTerminal('width', [process.execPath, '--input-type=module', '-e', program], { columns: 100, rows: 30 }, {});
    try {
      await session.poll('the program to start', () => existsSync(ready));
      session.resize(60, 30);
      writeFileSync(go, '');
      await session.poll('its reading', () => existsSync(result));
      expect(JSON.parse(readFileSync(result, 'utf8'))).toEqual({ heardBefore: 100, heard: 100, now: 60 });
    } finally {
      session.close();
    }
  });

  it("is the stream's columns where there is no tty (a pipe, a test's stream)", () => {
    expect(terminalWidthNow({ columns: 77 } as NodeJS.WriteStream)).toBe(77);
  });
});
