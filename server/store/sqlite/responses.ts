import type { Db } from './database.js';
import type { Store, StoredResponse } from '../types.js';

interface Row {
  id: string;
  app_uuid: string;
  address: string | null;
  status: string;
  body: string;
  created_at: string;
  expires_at: string;
}

const toResponse = (row: Row): StoredResponse => ({
  id: row.id,
  appUuid: row.app_uuid,
  address: row.address,
  status: row.status,
  body: JSON.parse(row.body) as Record<string, unknown>,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export function createResponsesRepository(db: Db): Store['responses'] {
  const insert = db.prepare(
    `INSERT INTO responses (id, app_uuid, address, status, body, created_at, expires_at)
     VALUES (@id, @appUuid, @address, @status, @body, @createdAt, @expiresAt)`,
  );
  const select = db.prepare<[string, string, string | null, string], Row>(
    'SELECT * FROM responses WHERE id = ? AND app_uuid = ? AND address IS ? AND expires_at > ?',
  );
  const selectInterrupted = db.prepare<[], Row>("SELECT * FROM responses WHERE status IN ('queued', 'in_progress')");
  const update = db.prepare('UPDATE responses SET status = ?, body = ? WHERE id = ?');
  const deleteExpired = db.prepare('DELETE FROM responses WHERE expires_at <= ?');

  return {
    async put(response) {
      insert.run({ ...response, body: JSON.stringify(response.body) });
    },
    async get(appUuid, address, id, now) {
      const row = select.get(id, appUuid, address, now);
      return row ? toResponse(row) : null;
    },
    async transition(id, from, status, body) {
      const placeholders = from.map(() => '?').join(', ');
      return (
        db.prepare(`UPDATE responses SET status = ?, body = ? WHERE id = ? AND status IN (${placeholders})`).run(status, JSON.stringify(body), id, ...from)
          .changes === 1
      );
    },
    async failInterrupted(body) {
      return db.transaction(() => {
        const rows = selectInterrupted.all();
        for (const row of rows) update.run('failed', JSON.stringify(body(JSON.parse(row.body) as Record<string, unknown>)), row.id);
        return rows.length;
      })();
    },
    async deleteExpired(now) {
      return deleteExpired.run(now).changes;
    },
  };
}
