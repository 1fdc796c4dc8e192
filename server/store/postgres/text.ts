import type { Query, Sql } from './database.js';
import type { AppScope, Store, TextChannel } from '../types.js';
import { registrationRow, toRegistration, type TextRow } from '../rows.js';

const COLUMNS = 'channel, identifier, app_uuid, livemode, owner, preferred_model, created_at, updated_at';

/**
 * Text channel registrations: in an app and mode, one holder per identifier and one identifier per
 * holder. The mode is part of every key: test and live registrations of one identifier are two
 * rows, and neither mode reaches the other's.
 */
export function createTextRepository(sql: Sql): Store['text'] {
  const inScope = (channel: TextChannel, scope: AppScope) =>
    sql`channel = ${channel} AND app_uuid = ${scope.appUuid} AND livemode = ${scope.livemode}`;
  const byIdentifier = async (q: Query, channel: TextChannel, scope: AppScope, identifier: string) => {
    const [row] = await q<TextRow[]>`
      SELECT ${sql.unsafe(COLUMNS)} FROM text_registrations WHERE ${inScope(channel, scope)} AND identifier = ${identifier}`;
    return row ?? null;
  };
  const byOwner = async (q: Query, channel: TextChannel, scope: AppScope, owner: string) => {
    const [row] = await q<TextRow[]>`
      SELECT ${sql.unsafe(COLUMNS)} FROM text_registrations WHERE ${inScope(channel, scope)} AND owner = ${owner}`;
    return row ?? null;
  };

  return {
    async byIdentifier(channel, scope, identifier) {
      const row = await byIdentifier(sql, channel, scope, identifier);
      return row ? toRegistration(row) : null;
    },

    async byOwner(channel, scope, owner) {
      const row = await byOwner(sql, channel, scope, owner);
      return row ? toRegistration(row) : null;
    },

    async register(registration, at) {
      const { channel, identifier, appUuid, livemode, owner } = registration;
      return sql.begin(async (tx) => {
        // Registrations of one channel of one app and mode take turns (across instances): the
        // check for a holder and the insert then cannot interleave with another caller's, and a
        // row that does not exist yet needs no row lock. Unregistering is one DELETE and needs no turn.
        await tx`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':svc:text:' || ${channel}::text || ':' || ${appUuid}::text || ':' || ${livemode}::text))`;
        const holder = await byIdentifier(tx, channel, registration, identifier);
        if (holder && holder.owner !== owner) return 'taken' as const;
        const [previous] = await tx<TextRow[]>`
          DELETE FROM text_registrations WHERE ${inScope(channel, registration)} AND owner = ${owner}
          RETURNING ${sql.unsafe(COLUMNS)}`;
        const row = registrationRow(registration, previous, at);
        await tx`
          INSERT INTO text_registrations (${sql.unsafe(COLUMNS)})
          VALUES (${row.channel}, ${row.identifier}, ${row.app_uuid}, ${livemode}, ${row.owner}, ${row.preferred_model}, ${row.created_at}, ${row.updated_at})`;
        return toRegistration(row);
      });
    },

    async unregister(channel, scope, owner) {
      const [row] = await sql<TextRow[]>`
        DELETE FROM text_registrations WHERE ${inScope(channel, scope)} AND owner = ${owner}
        RETURNING ${sql.unsafe(COLUMNS)}`;
      return row ? toRegistration(row) : null;
    },
  };
}
