import type { Db } from './database.js';
import type { Store, TextChannel, TextRegistrationRecord } from '../types.js';
import { registrationRow, toRegistration, type TextRow } from '../rows.js';


/** Text channel registrations (migrations 5, 11): in an app, one holder per identifier and one identifier per holder. */
export function createTextRepository(db: Db): Store['text'] {
  const byIdentifier = db.prepare<[TextChannel, string, string], TextRow>(
    'SELECT * FROM text_registrations WHERE channel = ? AND app_uuid = ? AND identifier = ?',
  );
  const byOwner = db.prepare<[TextChannel, string, string], TextRow>(
    'SELECT * FROM text_registrations WHERE channel = ? AND app_uuid = ? AND owner = ?',
  );
  const deleteOwner = db.prepare('DELETE FROM text_registrations WHERE channel = ? AND app_uuid = ? AND owner = ?');
  const insert = db.prepare(
    `INSERT INTO text_registrations (channel, identifier, app_uuid, owner, preferred_model, created_at, updated_at)
     VALUES (@channel, @identifier, @app_uuid, @owner, @preferred_model, @created_at, @updated_at)`,
  );

  const register = db.transaction((registration: Omit<TextRegistrationRecord, 'createdAt' | 'updatedAt'>, at: string) => {
    const { channel, identifier, appUuid, owner } = registration;
    const holder = byIdentifier.get(channel, appUuid, identifier);
    if (holder && holder.owner !== owner) return 'taken' as const;
    const previous = byOwner.get(channel, appUuid, owner);
    deleteOwner.run(channel, appUuid, owner);
    const row = registrationRow(registration, previous, at);
    insert.run(row);
    return toRegistration(row);
  });

  const unregister = db.transaction((channel: TextChannel, appUuid: string, owner: string) => {
    const row = byOwner.get(channel, appUuid, owner);
    if (row) deleteOwner.run(channel, appUuid, owner);
    return row ? toRegistration(row) : null;
  });

  return {
    async byIdentifier(channel, appUuid, identifier) {
      const row = byIdentifier.get(channel, appUuid, identifier);
      return row ? toRegistration(row) : null;
    },
    async byOwner(channel, appUuid, owner) {
      const row = byOwner.get(channel, appUuid, owner);
      return row ? toRegistration(row) : null;
    },
    async register(registration, at) {
      return register(registration, at);
    },
    async unregister(channel, appUuid, owner) {
      return unregister(channel, appUuid, owner);
    },
  };
}
