import { createClient, type Client } from '../../client/client.js';
import { manifestOperation } from '../manifest.js';

/**
 * `svc chat --max-spend CREDITS`: the chat runs on a key of its own, an inference key whose
 * budget is the cap. The server holds every request against that budget in the same atomic step
 * as the balance, so the cap holds whatever the client does (and prices models the client does
 * not know); past it the server answers 402 budget_exceeded.
 */

/** How long the session's key lives: it stops working by itself if the chat cannot delete it at exit. */
const SESSION_KEY_HOURS = 12;
/** The budget's window: longer than the key lives, so the budget never resets within the session. */
const SESSION_BUDGET_PERIOD = '1d';

/** The logged-in key cannot make the session's key: the chat must not start uncapped. */
export class MaxSpendRefused extends Error {}

export interface SessionKey {
  /** A client that spends with the session's key. */
  client: Client;
  keyId: string;
  /** Deletes the key (it expires anyway); never throws. */
  revoke(): Promise<void>;
}

const whoCanCreate =
  'only an admin key can create the capped key --max-spend runs on. Log in with an admin key (`svc auth login`), ' +
  "or chat without --max-spend on a key whose own budget caps it (ask the app's admin: `svc api developer apps api-keys create <app> --budget-credits N`).";

/** Creates the session's capped key with `admin` (the logged-in key), or says why it cannot. */
export async function createSessionKey(
  admin: Client,
  options: { maxSpend: number; apiUrl: string; userAgent: string; now?: Date },
): Promise<SessionKey> {
  const config = await admin.call(await manifestOperation('config.list'));
  const { caller } = config;
  if (caller.kind !== 'api_key') throw new MaxSpendRefused(`You are signed in as an end user: ${whoCanCreate}`);
  if (caller.role !== 'admin') throw new MaxSpendRefused(`This is ${caller.role === 'inference' ? 'an' : 'a'} ${caller.role} key: ${whoCanCreate}`);
  const now = options.now ?? new Date();
  const created = await admin.call(await manifestOperation('developer.apps.api-keys.create'), {
    params: { app_uuid: caller.app_uuid },
    body: {
      name: `svc chat --max-spend ${options.maxSpend} (${now.toISOString().slice(0, 16)}Z)`,
      role: 'inference',
      budget_credits: options.maxSpend,
      budget_period: SESSION_BUDGET_PERIOD,
      expires_at: new Date(now.getTime() + SESSION_KEY_HOURS * 3600_000).toISOString(),
    },
  });
  const remove = await manifestOperation('developer.apps.api-keys.delete');
  return {
    client: createClient({ baseUrl: options.apiUrl, apiKey: created.secret, userAgent: options.userAgent }),
    keyId: created.key_id,
    async revoke() {
      try {
        await admin.call(remove, { params: { app_uuid: caller.app_uuid, key_id: created.key_id } });
      } catch {
        // It expires by itself within hours.
      }
    },
  };
}
