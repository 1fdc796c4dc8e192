import type { Query, Sql } from './database.js';
import type { Store, TextChannel } from '../types.js';
import { registrationRow, toRegistration, type TextRow } from '../rows.js';

const COLUMNS = 'channel, identifier, app_uuid, owner, preferred_model, created_at, updated_at';


/** Text channel registrations: in an app, one holder per identifier and one identifier per holder. */
export function createTextRepository(sql: Sql): Store['text'] {
  const byIdentifier = async (q: Query, channel: TextChannel, appUuid: string, identifier: string) => {
    const [row] = await q<TextRow[]>`
      SELECT ${sql.unsafe(COLUMNS)} FROM text_registrations WHERE channel = ${channel} AND app_uuid = ${appUuid} AND identifier = ${identifier}`;
    return row ?? null;
  };
  const byOwner = async (q: Query, channel: TextChannel, appUuid: string, owner: string) => {
    const [row] = await q<TextRow[]>`
      SELECT ${sql.unsafe(COLUMNS)} FROM text_registrations WHERE channel = ${channel} AND app_uuid = ${appUuid} AND owner = ${owner}`;
    return row ?? null;
  };

  return {
    async byIdentifier(channel, appUuid, identifier) {
      const row = await byIdentifier(sql, channel, appUuid, identifier);
      return row ? toRegistration(row) : null;
    },

    async byOwner(channel, appUuid, owner) {
      const row = await byOwner(sql, channel, appUuid, owner);
      return row ? toRegistration(row) : null;
    },

    async register(registration, at) {
      const { channel, identifier, appUuid, owner } = registration;
      return sql.begin(async (tx) => {
        // Registrations of one channel of one app take turns (across instances): the check for a
        // holder and the insert then cannot interleave with another caller's, and a row that does
        // not exist yet needs no row lock. Unregistering is one DELETE and needs no turn.
        await tx`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':svc:text:' || ${channel}::text || ':' || ${appUuid}::text))`;
        const holder = await byIdentifier(tx, channel, appUuid, identifier);
        if (holder && holder.owner !== owner) return 'taken' as const;
        const [previous] = await tx<TextRow[]>`
          DELETE FROM text_registrations WHERE channel = ${channel} AND app_uuid = ${appUuid} AND owner = ${owner}
          RETURNING ${sql.unsafe(COLUMNS)}`;
        const row = registrationRow(registration, previous, at);
        await tx`
          INSERT INTO text_registrations (channel, identifier, app_uuid, owner, preferred_model, created_at, updated_at)
          VALUES (${row.channel}, ${row.identifier}, ${row.app_uuid}, ${row.owner}, ${row.preferred_model}, ${row.created_at}, ${row.updated_at})`;
        return toRegistration(row);
      });
    },

    async unregister(channel, appUuid, owner) {
      const [row] = await sql<TextRow[]>`
        DELETE FROM text_registrations WHERE channel = ${channel} AND app_uuid = ${appUuid} AND owner = ${owner}
        RETURNING ${sql.unsafe(COLUMNS)}`;
      return row ? toRegistration(row) : null;
    },
  };
}
