import * as z from 'zod/mini';

/**
 * Every environment variable the client side (the CLI and the TUI) reads, declared once, below both. zod/mini (a few kilobytes)
 * rather than zod: `svc api …` reads these on its hot path, which loads no full schema library.
 * Every variable is text, and set-but-empty counts as unset (`VAR=` switches it off), so nothing
 * here can be a bad value; what a value must look like is checked where it is used, with the
 * variable's name in the error (SVC_API_URL must be an http(s) URL; SVC_DATABASE_URL a SQLite
 * file or a PostgreSQL URL).
 */
const text = (description: string) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((value) => (value === '' ? undefined : value)),
  ).register(z.globalRegistry, { description });

export const ClientEnvironment = z.object({
  SVC_HOME: text('Where the CLI keeps its config, keys and local server database (default ~/.svc).'),
  SVC_API_KEY: text('The API key (wins over the saved one).'),
  SVC_API_URL: text('The server (wins over the saved one; `--api-url` wins over it). An http:// or https:// URL.'),
  SVC_DATABASE_URL: text('The database of `svc serve` and `svc admin` (`--db` wins): a SQLite file or a postgres:// URL.'),
  VISUAL: text('The editor Ctrl+G opens the chat draft in (first choice).'),
  EDITOR: text('The editor Ctrl+G opens the chat draft in when VISUAL is unset (default vi).'),
  NO_COLOR: text('Set (to anything but empty, as no-color.org says): no colour in JSON output.'),
  TERM: text('`dumb`: no colour in JSON output.'),
});
export type ClientEnvironment = z.infer<typeof ClientEnvironment>;

/** The CLI's environment as it reads it (the process's, or a test's). */
export const clientEnvironment = (env: NodeJS.ProcessEnv): ClientEnvironment => z.parse(ClientEnvironment, env);
