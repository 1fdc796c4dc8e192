/** Exit codes of every command (ARCHITECTURE.md §8). */
export const ExitCode = {
  ok: 0,
  /** The server answered with an error. */
  apiError: 1,
  /** The command line was wrong: unknown command, missing argument, bad value. */
  usage: 2,
  /** No server answered at the API URL. */
  unreachable: 3,
} as const;
