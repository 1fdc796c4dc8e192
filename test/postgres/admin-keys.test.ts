import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { manualClock } from '../../server/clock.js';
import { explain, removeTempDirs, runSvc, tempDir } from '../helpers/cli.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/** `svc admin keys create` on a PostgreSQL URL: the key it prints works against a server on that database. */

afterAll(removeTempDirs);

describe.skipIf(!testDatabaseUrl)('svc admin keys create on PostgreSQL', () => {
  it('issues a key for the developer’s default app, and a server on the database accepts it', async () => {
    const schema = await freshSchema();
    try {
      const home = tempDir();
      const created = await runSvc(['admin', 'developers', 'create', '--name', 'Acme', '--db', schema.url], { home });
      expect(created.code, explain(created)).toBe(0);
      const { developer_id: developerId, app_uuid: appUuid } = created.json();
      const listed = await runSvc(['admin', 'developers', 'list'], { home, env: { SVC_DATABASE_URL: schema.url } });
      expect(listed.json().data).toEqual([expect.objectContaining({ developer_id: developerId, default_app_uuid: appUuid })]);

      const issued = await runSvc(['admin', 'keys', 'create', '--developer', developerId, '--role', 'read_only', '--db', schema.url], { home });
      expect(issued.code, explain(issued)).toBe(0);
      const key = issued.json();
      expect(key).toMatchObject({ app_uuid: appUuid, role: 'read_only', is_test: false, secret: expect.stringMatching(/^svc_live_/) });
      const unknown = await runSvc(['admin', 'keys', 'create', '--developer', 'dev_nobody', '--role', 'admin', '--db', schema.url], { home });
      expect(unknown.code, explain(unknown)).toBe(1);
      expect(unknown.stderr).toBe('svc: no developer dev_nobody (svc admin developers list shows them)\n');

      const server = await startServer({ dbPath: schema.url, port: 0, clock: manualClock('2026-03-01T12:00:00.000Z'), log: () => {}, env: {} });
      try {
        const apps = await fetch(`${server.url}/api/v1/developer/apps`, { headers: { 'x-api-key': key.secret } });
        expect(apps.status).toBe(200);
        expect(((await apps.json()) as { data: { app_uuid: string }[] }).data.map((a) => a.app_uuid)).toEqual([appUuid]);
      } finally {
        await server.close();
      }
    } finally {
      await schema.drop();
    }
  });
});
