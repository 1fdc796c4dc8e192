import { join } from 'node:path';
import { isPostgresUrl, withoutPassword } from '../../server/store/location.js';
import { clientEnvironment } from '../client/environment.js';

/** Where the server's data is: a SQLite file, or a PostgreSQL database by URL. */
export type DatabaseLocation = { kind: 'file'; path: string } | { kind: 'url'; url: string };

/** The URL with its password hidden: locations are printed. */
export function shownLocation(location: DatabaseLocation): string {
  if (location.kind === 'file') return location.path;
  return withoutPassword(location.url);
}

/**
 * `--db`, else SVC_DATABASE_URL, else ~/.svc/server.db. A URL must be PostgreSQL's; any other
 * scheme is refused in one line rather than opened as a file named like the URL.
 */
export function databaseLocation(db: string | undefined, env: NodeJS.ProcessEnv, home: string): DatabaseLocation | { refusal: string } {
  const given = db ?? clientEnvironment(env).SVC_DATABASE_URL;
  if (given === undefined) return { kind: 'file', path: join(home, 'server.db') };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(given)) return { kind: 'file', path: given };
  if (isPostgresUrl(given)) return { kind: 'url', url: given };
  const scheme = given.slice(0, given.indexOf(':'));
  return { refusal: `svc: ${scheme}://… is not a database svc can use: give a SQLite file (--db /path/to/server.db) or a PostgreSQL URL (postgres://user@host:5432/db).\n` };
}

/** What the server and operator functions take: a file path or the URL itself. */
export const locationText = (location: DatabaseLocation) => (location.kind === 'file' ? location.path : location.url);
