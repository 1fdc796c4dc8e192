/**
 * `--db` takes a SQLite file. A database URL (`postgres://…`) is refused in one clear line
 * until the PostgreSQL store exists, rather than being opened as a file named like the URL.
 */
export function databaseUrlRefusal(db: string | undefined): string | null {
  if (db === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) return null;
  const scheme = db.slice(0, db.indexOf(':'));
  return `svc: --db ${scheme}://… is a database URL; this version stores data only in a SQLite file (--db /path/to/server.db).\n`;
}
