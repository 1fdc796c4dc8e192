import type { Clock } from '../clock.js';
import type { KeyRole } from '../../src/contract/operation.js';
import { invalidRequest, notFound } from '../errors.js';
import { generateApiKey } from '../auth/api-keys.js';
import type { Page, Store } from '../store/types.js';

export function createApiKeysService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  return {
    /** Creates a key (an `inference` one unless said) and returns it with its secret, never readable again. */
    async create(appUuid: string, input: { name: string; is_test: boolean; role?: KeyRole | undefined }) {
      const role = input.role ?? 'inference';
      if (input.is_test && role === 'admin') {
        throw invalidRequest(
          'A test key cannot be admin: test keys never change live objects. Create an inference or read_only test key, or a live admin key.',
          'role',
          'test_key_cannot_be_admin',
        );
      }
      const generated = generateApiKey(input.is_test);
      const key = await store.apiKeys.create({
        keyId: generated.keyId,
        appUuid,
        name: input.name,
        isTest: input.is_test,
        role,
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
