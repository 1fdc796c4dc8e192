import { scopeOf, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { ApiError, conflict, invalidRequest, notFound } from '../errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Store, TextChannel, TextRegistrationRecord } from '../store/types.js';

/**
 * The identifier each channel accepts:
 * - `sms`: an E.164 phone number, `+` then 8 to 15 digits, the first not 0 (`+14155550123`).
 * - `messenger`: a page-scoped id as messaging platforms issue them, 5 to 32 digits.
 */
export const IDENTIFIER_FORMATS: Record<TextChannel, { pattern: RegExp; description: string }> = {
  sms: { pattern: /^\+[1-9]\d{7,14}$/, description: 'an E.164 phone number: + and 8 to 15 digits, the first not 0 (e.g. +14155550123)' },
  messenger: { pattern: /^\d{5,32}$/, description: 'a page-scoped id: 5 to 32 digits' },
};

/**
 * Who holds a registration within an app and mode: `app` for the app itself (all of its API keys
 * of that mode are the same caller), `user:<address>` for an end user signed in with an identity token.
 */
export function ownerOf(principal: Principal): string {
  return principal.kind === 'api_key' ? 'app' : `user:${principal.address}`;
}

const present = (record: TextRegistrationRecord, registered: boolean) => ({
  channel: record.channel,
  identifier: record.identifier,
  preferred_model: record.preferredModel,
  registered,
});

/**
 * Text channel registrations (`text register|lookup|status|unregister`).
 *
 * - Within an app and mode an identifier belongs to one caller: registering one that another caller
 *   of the app holds is a 409. Apps are apart, and so are modes: test and live registrations of one
 *   identifier are two objects, and neither mode sees, changes or removes the other's.
 * - A caller has at most one identifier per channel: registering again replaces it.
 * - `preferred_model` must be a chat model this server serves (404/400 naming `preferred_model`);
 *   left out, it is null and the channel uses the server's default chat model.
 * - Lookup sees only the caller's app and mode: an identifier held by the app or one of its users
 *   answers with its registration; nothing of another app's or mode's registrations is ever seen.
 */
export function createTextService(deps: { store: Store; clock: Clock; registry: ProviderRegistry }) {
  function checkIdentifier(channel: TextChannel, identifier: string): string {
    const format = IDENTIFIER_FORMATS[channel];
    if (!format.pattern.test(identifier)) {
      throw invalidRequest(`A ${channel} identifier must be ${format.description}.`, 'identifier');
    }
    return identifier;
  }

  function checkModel(model: string): void {
    try {
      deps.registry.resolve(model, 'chat');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError(error.status, error.type, error.message, error.code, 'preferred_model');
    }
  }

  return {
    async lookup(principal: Principal, channel: TextChannel, identifier: string) {
      const record = await deps.store.text.byIdentifier(channel, scopeOf(principal), checkIdentifier(channel, identifier));
      if (!record) {
        throw notFound(`No one in this app has registered ${identifier} on ${channel}.`, 'not_found', 'identifier');
      }
      return present(record, true);
    },

    async register(principal: Principal, channel: TextChannel, body: { identifier: string; preferred_model?: string | undefined }) {
      const identifier = checkIdentifier(channel, body.identifier);
      if (body.preferred_model !== undefined) checkModel(body.preferred_model);
      const result = await deps.store.text.register(
        { channel, identifier, ...scopeOf(principal), owner: ownerOf(principal), preferredModel: body.preferred_model ?? null },
        deps.clock.now().toISOString(),
      );
      if (result === 'taken') throw conflict(`${identifier} is already registered on ${channel} by another caller of this app.`, 'identifier_taken');
      return present(result, true);
    },

    async status(principal: Principal, channel: TextChannel) {
      const record = await deps.store.text.byOwner(channel, scopeOf(principal), ownerOf(principal));
      return record ? present(record, true) : { channel, identifier: null, preferred_model: null, registered: false };
    },

    /** Answers the registration it removed, with `registered: false`. */
    async unregister(principal: Principal, channel: TextChannel) {
      const record = await deps.store.text.unregister(channel, scopeOf(principal), ownerOf(principal));
      if (!record) throw notFound(`You have no registration on ${channel}.`);
      return present(record, false);
    },
  };
}
