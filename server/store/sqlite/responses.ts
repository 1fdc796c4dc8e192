import type { Db } from './database.js';
import type { Store, StoredResponseEvent } from '../types.js';
import { flag, toResponse, type ResponseRow } from '../rows.js';

export function createResponsesRepository(db: Db): Store['responses'] {
  const insert = db.prepare(
    `INSERT INTO responses (id, app_uuid, address, livemode, status, body, input, upstream_id, created_at, expires_at)
     VALUES (@id, @appUuid, @address, @livemode, @status, @body, @input, @upstreamId, @createdAt, @expiresAt)`,
  );
  // The owner is the whole key: app, user and mode.
  const select = db.prepare<[string, string, string | null, number, string], ResponseRow>(
    'SELECT * FROM responses WHERE id = ? AND app_uuid = ? AND address IS ? AND livemode = ? AND expires_at > ?',
  );
  const selectInterrupted = db.prepare<[], ResponseRow>("SELECT * FROM responses WHERE status IN ('queued', 'in_progress')");
  const update = db.prepare('UPDATE responses SET status = ?, body = ? WHERE id = ?');
  const deleteExpired = db.prepare('DELETE FROM responses WHERE expires_at <= ?');
  // Events of responses gone (expired, deleted, or one written by a run after its response was deleted).
  const deleteOrphanEvents = db.prepare('DELETE FROM response_events WHERE response_id NOT IN (SELECT id FROM responses)');
  const deleteOne = db.prepare('DELETE FROM responses WHERE id = ? AND app_uuid = ? AND address IS ? AND livemode = ?');
  const deleteEvents = db.prepare('DELETE FROM response_events WHERE response_id = ?');
  const insertEvent = db.prepare('INSERT INTO response_events (response_id, sequence_number, event, data) VALUES (?, ?, ?, ?)');
  const selectEvents = db.prepare<[string, number], StoredResponseEvent>(
    'SELECT sequence_number AS sequenceNumber, event, data FROM response_events WHERE response_id = ? AND sequence_number > ? ORDER BY sequence_number',
  );
  // Item ids are random and long: a text match finds the few rows to look in.
  const withItem = db.prepare<[string, string | null, number, string, string, string], ResponseRow>(
    `SELECT * FROM responses WHERE app_uuid = ? AND address IS ? AND livemode = ? AND expires_at > ? AND (body LIKE ? OR input LIKE ?)
     ORDER BY created_at DESC LIMIT 5`,
  );

  return {
    async put(response) {
      insert.run({ ...response, livemode: flag(response.livemode), body: JSON.stringify(response.body), input: JSON.stringify(response.input) });
    },
    async findItem(owner, itemId, now) {
      // "_" stands for any one character in LIKE: harmless here, the match is checked below.
      const pattern = `%"id":"${itemId.replace(/[%"\\]/g, '')}"%`;
      for (const row of withItem.all(owner.appUuid, owner.address, flag(owner.livemode), now, pattern, pattern)) {
        const stored = toResponse(row);
        const output = Array.isArray(stored.body.output) ? (stored.body.output as Record<string, unknown>[]) : [];
        const items = [...output, ...stored.input];
        const found = items.find((item) => item.id === itemId);
        if (found) return found;
      }
      return null;
    },
    async get(owner, id, now) {
      const row = select.get(id, owner.appUuid, owner.address, flag(owner.livemode), now);
      return row ? toResponse(row) : null;
    },
    async transition(id, from, status, body, upstreamId) {
      const placeholders = from.map(() => '?').join(', ');
      return (
        db
          .prepare(`UPDATE responses SET status = ?, body = ?, upstream_id = COALESCE(?, upstream_id) WHERE id = ? AND status IN (${placeholders})`)
          .run(status, JSON.stringify(body), upstreamId ?? null, id, ...from).changes === 1
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
      return db.transaction(() => {
        const deleted = deleteExpired.run(now).changes;
        if (deleted > 0) deleteOrphanEvents.run();
        return deleted;
      })();
    },
    async delete(owner, id) {
      return db.transaction(() => {
        const deleted = deleteOne.run(id, owner.appUuid, owner.address, flag(owner.livemode)).changes === 1;
        if (deleted) deleteEvents.run(id);
        return deleted;
      })();
    },
    async appendEvent(responseId, event) {
      insertEvent.run(responseId, event.sequenceNumber, event.event, event.data);
    },
    async eventsAfter(responseId, sequenceNumber) {
      return selectEvents.all(responseId, sequenceNumber);
    },
  };
}
