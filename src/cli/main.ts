import { VERSION } from '../version.js';
import type { SvcContext } from './base-command.js';

/**
 * The `svc` entry point. `--version` answers before anything else loads; every other command
 * loads the command table on demand, and Ink only loads for the commands that draw a TUI.
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  return runCommandLine(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    colorDepth: process.stdout.getColorDepth?.() ?? 1,
  });
}

/**
 * One command line against the given streams, environment and directory: what the process
 * runs, and what the CLI tests run in-process (the process's own globals are read only above).
 */
export async function runCommandLine(argv: string[], context: SvcContext): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    context.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import('./run.js');
  return runCli(argv, context);
}

/**
 * `svc … | head`: once the reader has gone, there is nobody to tell anything. Node reports the
 * closed pipe as an EPIPE error on the stream; the command ends at once, quietly, exit 0, as
 * Unix tools do.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
