import type { Sql } from './database.js';
import { DEAD_AFTER_SECONDS } from './instances.js';
import type { ResponseOwner, Store, StoredResponseEvent } from '../types.js';
import { toResponse, type ResponseRow } from '../rows.js';

const COLUMNS = 'id, app_uuid, address, livemode, status, body, input, upstream_id, created_at, expires_at';
const ACTIVE = ['queued', 'in_progress'];

/**
 * Responses shared by every instance. A response still queued or running belongs to the instance
 * that runs it (instance_id): at a restart or shutdown an instance fails its own, and those of
 * instances taken for dead, never a live neighbour's.
 */
export function createResponsesRepository(sql: Sql, instanceId: string): Store['responses'] {
  // The owner is the whole key: app, user and mode.
  const ownedBy = (owner: ResponseOwner) =>
    sql`app_uuid = ${owner.appUuid} AND address IS NOT DISTINCT FROM ${owner.address}::text AND livemode = ${owner.livemode}`;

  return {
    async put(response) {
      await sql`
        INSERT INTO responses (id, app_uuid, address, livemode, status, body, input, upstream_id, instance_id, created_at, expires_at)
        VALUES (${response.id}, ${response.appUuid}, ${response.address}, ${response.livemode}, ${response.status}, ${JSON.stringify(response.body)},
          ${JSON.stringify(response.input)}, ${response.upstreamId}, ${instanceId}, ${response.createdAt}, ${response.expiresAt})`;
    },

    async findItem(owner, itemId, now) {
      // Item ids are random and long: a text match finds the few rows to look in. "_" stands for
      // any one character in LIKE: harmless here, the match is checked below.
      const pattern = `%"id":"${itemId.replace(/[%"\\]/g, '')}"%`;
      const rows = await sql<ResponseRow[]>`
        SELECT ${sql.unsafe(COLUMNS)} FROM responses
        WHERE ${ownedBy(owner)} AND expires_at > ${now} AND (body LIKE ${pattern} OR input LIKE ${pattern})
        ORDER BY created_at COLLATE "C" DESC LIMIT 5`;
      for (const row of rows) {
        const stored = toResponse(row);
        const output = Array.isArray(stored.body.output) ? (stored.body.output as Record<string, unknown>[]) : [];
        const found = [...output, ...stored.input].find((item) => item.id === itemId);
        if (found) return found;
      }
      return null;
    },

    async get(owner, id, now) {
      const [row] = await sql<ResponseRow[]>`
        SELECT ${sql.unsafe(COLUMNS)} FROM responses WHERE id = ${id} AND ${ownedBy(owner)} AND expires_at > ${now}`;
      return row ? toResponse(row) : null;
    },

    async transition(id, from, status, body, upstreamId) {
      // One conditional UPDATE: of a cancel on one instance and a finish on another, the second
      // finds the status moved on and changes nothing.
      const result = await sql`
        UPDATE responses SET status = ${status}, body = ${JSON.stringify(body)}, upstream_id = COALESCE(${upstreamId ?? null}::text, upstream_id)
        WHERE id = ${id} AND status = ANY(${from}::text[])`;
      return result.count === 1;
    },

    async failInterrupted(body) {
      // The new body is computed here from the old, so the rows are locked while it is (in id
      // order: two instances failing a dead one's responses wait for each other, never deadlock).
      // A row a live instance finishes meanwhile is re-checked under the lock and left alone.
      return sql.begin(async (tx) => {
        const rows = await tx<{ id: string; body: string }[]>`
          SELECT id, body FROM responses
          WHERE status = ANY(${ACTIVE}::text[])
            AND (instance_id IS NULL OR instance_id = ${instanceId} OR instance_id NOT IN (
              SELECT id FROM instances WHERE seen_at > now() - make_interval(secs => ${DEAD_AFTER_SECONDS})))
          ORDER BY id FOR UPDATE`;
        let failed = 0;
        for (const row of rows) {
          const next = JSON.stringify(body(JSON.parse(row.body) as Record<string, unknown>));
          const result = await tx`
            UPDATE responses SET status = 'failed', body = ${next} WHERE id = ${row.id} AND status = ANY(${ACTIVE}::text[])`;
          failed += result.count;
        }
        return failed;
      });
    },

    async deleteExpired(now) {
      const result = await sql`DELETE FROM responses WHERE expires_at <= ${now}`;
      // Events of responses gone (expired, deleted, or one written by a run after its response was deleted).
      if (result.count > 0) await sql`DELETE FROM response_events WHERE response_id NOT IN (SELECT id FROM responses)`;
      return result.count;
    },

    async delete(owner, id) {
      const result = await sql`DELETE FROM responses WHERE id = ${id} AND ${ownedBy(owner)}`;
      // Events left by a failure here are swept with the expired ones.
      if (result.count === 1) await sql`DELETE FROM response_events WHERE response_id = ${id}`;
      return result.count === 1;
    },

    async appendEvent(responseId, event) {
      await sql`
        INSERT INTO response_events (response_id, sequence_number, event, data)
        VALUES (${responseId}, ${event.sequenceNumber}, ${event.event}, ${event.data})`;
    },

    async eventsAfter(responseId, sequenceNumber) {
      return sql<StoredResponseEvent[]>`
        SELECT sequence_number AS "sequenceNumber", event, data FROM response_events
        WHERE response_id = ${responseId} AND sequence_number > ${sequenceNumber} ORDER BY sequence_number`;
    },
  };
}
