import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { generateApiKey } from '../auth/api-keys.js';
import type { Page, Store } from '../store/types.js';

export function createApiKeysService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  return {
    /** Creates a key and returns it with its secret; the secret is never readable again. */
    async create(appUuid: string, input: { name: string; is_test: boolean }) {
      const generated = generateApiKey(input.is_test);
      const key = await store.apiKeys.create({
        keyId: generated.keyId,
        appUuid,
        name: input.name,
        isTest: input.is_test,
        prefix: generated.prefix,
        secretHash: generated.secretHash,
        at: clock.now().toISOString(),
      });
      return { ...key, secret: generated.secret };
    },

    list(appUuid: string, page: Page) {
      return store.apiKeys.list(appUuid, page);
    },

    async delete(appUuid: string, keyId: string) {
      if (!(await store.apiKeys.delete(appUuid, keyId, clock.now().toISOString()))) {
        throw notFound(`No API key ${keyId} in app ${appUuid}.`, 'api_key_not_found');
      }
    },
  };
}
