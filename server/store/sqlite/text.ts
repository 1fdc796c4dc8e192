import type { Db } from './database.js';
import type { AppScope, Store, TextChannel, TextRegistrationRecord } from '../types.js';
import { flag, registrationRow, toRegistration, type TextRow } from '../rows.js';

type Key = [TextChannel, string, 0 | 1, string];

/**
 * Text channel registrations (migrations 5, 11, 14): in an app and mode, one holder per identifier
 * and one identifier per holder. The mode is part of every key: test and live registrations of
 * one identifier are two rows, and neither mode reaches the other's.
 */
export function createTextRepository(db: Db): Store['text'] {
  const byIdentifier = db.prepare<Key, TextRow>(
    'SELECT * FROM text_registrations WHERE channel = ? AND app_uuid = ? AND livemode = ? AND identifier = ?',
  );
  const byOwner = db.prepare<Key, TextRow>('SELECT * FROM text_registrations WHERE channel = ? AND app_uuid = ? AND livemode = ? AND owner = ?');
  const deleteOwner = db.prepare<Key>('DELETE FROM text_registrations WHERE channel = ? AND app_uuid = ? AND livemode = ? AND owner = ?');
  const insert = db.prepare(
    `INSERT INTO text_registrations (channel, identifier, app_uuid, livemode, owner, preferred_model, created_at, updated_at)
     VALUES (@channel, @identifier, @app_uuid, @livemode, @owner, @preferred_model, @created_at, @updated_at)`,
  );
  const key = (channel: TextChannel, scope: AppScope, last: string): Key => [channel, scope.appUuid, flag(scope.livemode), last];

  const register = db.transaction((registration: Omit<TextRegistrationRecord, 'createdAt' | 'updatedAt'>, at: string) => {
    const { channel, identifier, owner } = registration;
    const holder = byIdentifier.get(...key(channel, registration, identifier));
    if (holder && holder.owner !== owner) return 'taken' as const;
    const previous = byOwner.get(...key(channel, registration, owner));
    deleteOwner.run(...key(channel, registration, owner));
    const row = registrationRow(registration, previous, at);
    insert.run({ ...row, livemode: flag(registration.livemode) });
    return toRegistration(row);
  });

  const unregister = db.transaction((channel: TextChannel, scope: AppScope, owner: string) => {
    const row = byOwner.get(...key(channel, scope, owner));
    if (row) deleteOwner.run(...key(channel, scope, owner));
    return row ? toRegistration(row) : null;
  });

  return {
    async byIdentifier(channel, scope, identifier) {
      const row = byIdentifier.get(...key(channel, scope, identifier));
      return row ? toRegistration(row) : null;
    },
    async byOwner(channel, scope, owner) {
      const row = byOwner.get(...key(channel, scope, owner));
      return row ? toRegistration(row) : null;
    },
    async register(registration, at) {
      return register(registration, at);
    },
    async unregister(channel, scope, owner) {
      return unregister(channel, scope, owner);
    },
  };
}
