import { VERSION } from '../version.js';

/**
 * The `svc` entry point. `--version` answers before anything else loads; every other command
 * loads the command table on demand, and Ink only loads for the commands that draw a TUI.
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import('./run.js');
  return runCli(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    colorDepth: process.stdout.getColorDepth?.() ?? 1,
  });
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
