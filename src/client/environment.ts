/**
 * Every environment variable the client side (the CLI and the TUI) reads, declared once, below
 * both, with what it does (the README's table is checked against this list).
 *
 * Read by hand, not through a zod schema: every variable is text, set-but-empty counts as unset
 * (`VAR=` switches it off), so nothing here can be a bad value, and what a value must look like is
 * checked where it is used, with the variable's name in the error (SVC_API_URL must be an
 * http(s) URL; SVC_DATABASE_URL a SQLite file or a PostgreSQL URL). Even zod/mini costs the hot
 * path of `svc api …` the bundle's shared zod chunk (about 600 KB with every locale): with it,
 * the cold start of `svc api developer apps list` went from 2.4× to 3.7× bare node.
 */
export const CLIENT_VARIABLES = {
  SVC_HOME: 'Where the CLI keeps its config, keys and local server database (default ~/.svc).',
  SVC_API_KEY: 'The API key (wins over the saved one).',
  SVC_API_URL: 'The server (wins over the saved one; `--api-url` wins over it). An http:// or https:// URL.',
  SVC_DATABASE_URL: 'The database of `svc serve` and `svc admin` (`--db` wins): a SQLite file or a postgres:// URL.',
  VISUAL: 'The editor Ctrl+G opens the chat draft in (first choice).',
  EDITOR: 'The editor Ctrl+G opens the chat draft in when VISUAL is unset (default vi).',
  NO_COLOR: 'Set (to anything but empty, as no-color.org says): no colour in JSON output.',
  TERM: '`dumb`: no colour in JSON output.',
} as const;

export type ClientVariable = keyof typeof CLIENT_VARIABLES;
export type ClientEnvironment = { [Name in ClientVariable]?: string };

const NAMES = Object.keys(CLIENT_VARIABLES) as ClientVariable[];

/** The CLI's environment as it reads it (the process's, or a test's): each variable, an empty one unset. */
export function clientEnvironment(env: NodeJS.ProcessEnv): ClientEnvironment {
  const read: ClientEnvironment = {};
  for (const name of NAMES) {
    const value = env[name];
    if (value !== undefined && value !== '') read[name] = value;
  }
  return read;
}
