import postgres from 'postgres';
import { pgMigrations } from './migrations.js';
import { isPostgresUrl, withoutPassword } from '../location.js';

/** BIGINT columns read as numbers: money is kept below 2^53 micro-credits (BalanceLimitError). */
const bigintAsNumber = { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) };
const types = { bigint: bigintAsNumber };

export type Sql = postgres.Sql<{ bigint: number }>;
/** The pool or a transaction: what a repository function runs its statements on. */
export type Query = postgres.ISql<{ bigint: number }>;
export type Tx = postgres.TransactionSql<{ bigint: number }>;

/** A PostgreSQL store could not be opened: the message is one line an operator can act on. */
export class DatabaseSetupError extends Error {}

const shown = (url: URL) => withoutPassword(url.href);

export interface PostgresOptions {
  /** Connections in the pool: a 2-core instance gains nothing past about 10 (see README). */
  poolSize?: number;
  /**
   * As for SQLite (SVC_DB_SYNCHRONOUS): `normal`, the default, commits without waiting for the
   * disk (synchronous_commit off: a commit survives svc being killed, and PostgreSQL's own crash
   * loses at most its last fraction of a second, never consistency); `full` waits for the flush.
   */
  synchronous?: 'normal' | 'full';
  /** Seconds to wait for a connection before giving up. */
  connectTimeoutSeconds?: number;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DatabaseSetupError(`Not a database URL: ${JSON.stringify(withoutPassword(text))} (expected postgres://user@host:5432/database).`);
  }
  if (!isPostgresUrl(url.href)) throw new DatabaseSetupError(`Not a PostgreSQL URL: ${url.protocol} (expected postgres://…).`);
  if (!url.hostname && !url.searchParams.get('host')) throw new DatabaseSetupError(`The database URL names no host: ${shown(url)}.`);
  if (url.pathname.length <= 1) throw new DatabaseSetupError(`The database URL names no database: ${shown(url)} (add /database).`);
  return url;
}

/** Where a URL connects: over TCP to `host:port`, or over the Unix-domain socket at `socket`. */
export interface ConnectionTarget {
  /** The URL to hand postgres.js: no `host` query parameter, and a host name it can parse. */
  href: string;
  socket: string | null;
  /** The host and port, or the socket's path, as an operator's message names it. */
  shown: string;
}

/**
 * Where a URL connects, read as libpq reads it: a host name, or a directory holding PostgreSQL's
 * Unix-domain socket — given as `?host=/var/run/postgresql` or percent-encoded in place of the
 * host (`postgres://svc@%2Fvar%2Frun%2Fpostgresql/svc`). A socket skips TCP on a database on the
 * same machine (about 10% less CPU a statement, measured). postgres.js takes the socket as its
 * own option and would send a `host` query parameter to the server as a setting, which refuses it.
 */
export function connectionTarget(url: URL): ConnectionTarget {
  const port = url.port || '5432';
  const queried = url.searchParams.get('host');
  let named: string;
  try {
    named = decodeURIComponent(url.hostname);
  } catch {
    throw new DatabaseSetupError(`The database URL's host is not valid percent-encoding: ${shown(url)}.`);
  }
  if (queried === null && !named.startsWith('/')) return { href: url.href, socket: null, shown: `${url.hostname}:${port}` };
  const host = queried ?? named;
  const target = new URL(url.href);
  target.searchParams.delete('host');
  if (!host.startsWith('/')) {
    target.hostname = host;
    // The URL keeps its old host when the new one is not a host name: refused, not connected elsewhere.
    if (target.hostname !== host) throw new DatabaseSetupError(`Not a host name: ?host=${JSON.stringify(host)} in ${shown(url)}.`);
    return { href: target.href, socket: null, shown: `${host}:${port}` };
  }
  // The host name is not used for a socket; postgres.js only needs one to parse the URL.
  target.hostname = 'localhost';
  const socket = `${host.replace(/\/+$/, '')}/.s.PGSQL.${port}`;
  return { href: target.href, socket, shown: socket };
}

/** A postgres.js pool on a database URL, over the socket it names, if it names one. */
export function poolAt<T extends Record<string, postgres.PostgresType> = Record<string, never>>(target: ConnectionTarget, options: postgres.Options<T>) {
  return postgres<T>(target.href, target.socket === null ? options : { ...options, path: target.socket });
}

/** What went wrong connecting, in the operator's terms. */
function explain(error: unknown, url: URL, where: string): DatabaseSetupError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DatabaseSetupError) return error;
  if (code === '28P01' || code === '28000') {
    return new DatabaseSetupError(`PostgreSQL at ${where} refused user ${JSON.stringify(decodeURIComponent(url.username) || 'default')}: ${message}.`);
  }
  if (code === '3D000') return new DatabaseSetupError(`PostgreSQL at ${where} has no such database: ${message} (createdb it first).`);
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH') {
    return new DatabaseSetupError(`Cannot reach PostgreSQL at ${where} (${code}). Is it running, and is the URL right?`);
  }
  return new DatabaseSetupError(`PostgreSQL at ${where}: ${message}${code ? ` (${code})` : ''}.`);
}

/** Connects, checks the server answers, and applies pending migrations; errors are DatabaseSetupError. */
export async function openPostgres(urlText: string, options: PostgresOptions = {}): Promise<Sql> {
  const url = parseUrl(urlText);
  const target = connectionTarget(url);
  let sql: Sql;
  try {
    sql = poolAt(target, {
      max: options.poolSize ?? 10,
      connect_timeout: options.connectTimeoutSeconds ?? 10,
      idle_timeout: 60,
      types,
      onnotice: () => {},
      connection: { synchronous_commit: options.synchronous === 'full' ? 'on' : 'off' },
    });
  } catch (error) {
    throw explain(error, url, target.shown);
  }
  try {
    await sql`SELECT 1`;
    await migrate(sql);
    return sql;
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw explain(error, url, target.shown);
  }
}

export const latestPgVersion = () => pgMigrations.at(-1)?.version ?? 0;

/**
 * Applies pending migrations in one transaction under an advisory lock keyed by the schema:
 * instances starting together wait for the first, then find nothing left to do.
 */
async function migrate(sql: Sql): Promise<void> {
  // Up to date (every start but the first after an upgrade): one read, no lock.
  const current = await sql<{ version: number | null }[]>`SELECT MAX(version) AS version FROM svc_schema`.then(
    ([row]) => row?.version ?? 0,
    () => 0,
  );
  if (current === latestPgVersion()) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':svc:migrate'))`;
    await tx`CREATE TABLE IF NOT EXISTS svc_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
    const [row] = await tx<{ version: number | null }[]>`SELECT MAX(version) AS version FROM svc_schema`;
    const current = row?.version ?? 0;
    const latest = latestPgVersion();
    if (current > latest) {
      throw new DatabaseSetupError(`The database is at schema version ${current}, newer than this svc (${latest}); upgrade svc.`);
    }
    for (const migration of pgMigrations) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO svc_schema (version, name) VALUES (${migration.version}, ${migration.name})`;
    }
  });
}
