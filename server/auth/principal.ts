import type { KeyRole } from '../../src/contract/operation.js';
import type { AppRecord } from '../store/types.js';

/** Who is calling. Developer operations need an API key; end-user operations accept both. */
export type Principal =
  | { kind: 'api_key'; developerId: string; app: AppRecord; keyId: string; isTest: boolean; role: KeyRole }
  /** `sandbox`: signed in with a sandbox identity token; treated like a test key (local provider, free). */
  | { kind: 'user'; developerId: string; app: AppRecord; address: string; sandbox?: boolean };

/** Test mode: a test key or a sandbox user. Free local models, sandbox payments, play money. */
export const isTestMode = (principal: Principal): boolean =>
  principal.kind === 'api_key' ? principal.isTest : principal.sandbox === true;
