import { ApiRequestError } from '../../client/errors.js';
import type { createClient } from '../../client/client.js';
import { manifestOperation } from '../manifest.js';

type Client = ReturnType<typeof createClient>;

/** A new test key for the project, or why there is none (the project still gets written). */
type TestKeyOutcome = { secret: string; appUuid: string } | { skipped: string };

/**
 * Creates an inference test key, named after the project, in the app the logged-in key belongs
 * to. Test keys spend play money only, so a starter's `.env` can hold one safely.
 */
export async function mintTestKey(client: Client, projectName: string): Promise<TestKeyOutcome> {
  try {
    const { caller } = await client.call(await manifestOperation('config.list'));
    const created = await client.call(await manifestOperation('developer.apps.api-keys.create'), {
      params: { app_uuid: caller.app_uuid },
      body: { name: projectName.slice(0, 100), is_test: true, role: 'inference' },
    });
    return { secret: created.secret, appUuid: caller.app_uuid };
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 403) {
      return { skipped: 'the saved key may not create keys (it needs the admin role)' };
    }
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}
