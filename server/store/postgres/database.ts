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

/**
 * Where a URL connects, read as libpq reads it: a host name, or a directory holding PostgreSQL's
 * Unix-domain socket — given as `?host=/var/run/postgresql` or percent-encoded in place of the
 * host (`postgres://svc@%2Fvar%2Frun%2Fpostgresql/svc`). A socket skips TCP on a database on the
 * same machine (about 10% less CPU a statement, measured). postgres.js takes the socket as its
 * own option and would send a `host` query parameter to the server as a setting, which refuses it.
 */
export function connectionTarget(url: URL): { href: string; socket: string | null; shown: string } {
  const port = url.port || '5432';
  const queried = url.searchParams.get('host');
  const named = decodeURIComponent(url.hostname);
  const host = queried ?? named;
  if (queried === null && !named.startsWith('/')) return { href: url.href, socket: null, shown: `${url.hostname}:${port}` };
  const target = new URL(url.href);
  target.searchParams.delete('host');
  if (!host.startsWith('/')) {
    target.hostname = host;
    return { href: target.href, socket: null, shown: `${host}:${port}` };
  }
  // The host name is not used for a socket; postgres.js only needs one to parse the URL.
  target.hostname = 'localhost';
  const socket = `${host.replace(/\/+$/, '')}/.s.PGSQL.${port}`;
  return { href: target.href, socket, shown: socket };
}

/** What went wrong connecting, in the operator's terms. */
function explain(error: unknown, url: URL): DatabaseSetupError {
  const where = connectionTarget(url).shown;
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
    sql = postgres(target.href, {
      ...(target.socket === null ? {} : { path: target.socket }),
      max: options.poolSize ?? 10,
      connect_timeout: options.connectTimeoutSeconds ?? 10,
      idle_timeout: 60,
      types,
      onnotice: () => {},
      connection: { synchronous_commit: options.synchronous === 'full' ? 'on' : 'off' },
    });
  } catch (error) {
    throw explain(error, url);
  }
  try {
    await sql`SELECT 1`;
    await migrate(sql);
    return sql;
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw explain(error, url);
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
