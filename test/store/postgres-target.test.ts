import { describe, expect, it } from 'vitest';
import { connectionTarget, DatabaseSetupError } from '../../server/store/postgres/database.js';

/** A database URL read as libpq reads it: a host name, or the directory of a Unix-domain socket. */
describe('connectionTarget', () => {
  const of = (text: string) => connectionTarget(new URL(text));

  it('a host name is connected to over TCP, the URL as given', () => {
    expect(of('postgres://svc@db.internal:5433/svc?search_path=one')).toEqual({
      href: 'postgres://svc@db.internal:5433/svc?search_path=one',
      socket: null,
      shown: 'db.internal:5433',
    });
  });

  it('a directory in ?host= is the socket in it, for the port, and host is not sent on as a setting', () => {
    const target = of('postgres://svc@localhost/svc?host=/var/run/postgresql&search_path=one');
    expect(target.socket).toBe('/var/run/postgresql/.s.PGSQL.5432');
    expect(target.shown).toBe(target.socket);
    expect(new URL(target.href).searchParams.has('host')).toBe(false);
    expect(new URL(target.href).searchParams.get('search_path')).toBe('one');
    expect(of('postgres:///svc?host=/tmp/').socket).toBe('/tmp/.s.PGSQL.5432');
    expect(of('postgres://svc@localhost:6432/svc?host=/tmp').socket).toBe('/tmp/.s.PGSQL.6432');
  });

  it('a directory percent-encoded in place of the host is the socket in it', () => {
    const target = of('postgres://svc:secret@%2Fvar%2Frun%2Fpostgresql:5433/svc');
    expect(target.socket).toBe('/var/run/postgresql/.s.PGSQL.5433');
    const href = new URL(target.href);
    expect([href.username, href.password, href.pathname]).toEqual(['svc', 'secret', '/svc']);
  });

  it('a host name in ?host= takes the place of the URL host', () => {
    const target = of('postgres://svc@ignored/svc?host=db.internal');
    expect(target).toMatchObject({ socket: null, shown: 'db.internal:5432' });
    expect(new URL(target.href).hostname).toBe('db.internal');
    expect(new URL(target.href).searchParams.has('host')).toBe(false);
  });

  it('a host that cannot be read is refused in one line, not connected to elsewhere', () => {
    expect(() => of('postgres://svc@%ZZ/svc')).toThrow(new DatabaseSetupError("The database URL's host is not valid percent-encoding: postgres://svc@%ZZ/svc."));
    expect(() => of('postgres://svc@ignored/svc?host=db%2Finternal')).toThrow(DatabaseSetupError);
    expect(() => of('postgres://svc@ignored/svc?host=a%20b')).toThrow('Not a host name: ?host="a b" in postgres://svc@ignored/svc?host=a%20b.');
  });
});
