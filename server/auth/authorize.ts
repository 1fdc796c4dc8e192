import { describeRoles, type AnyOperation } from '../../src/contract/operation.js';
import { forbidden } from '../errors.js';
import type { Principal } from './principal.js';

/**
 * What the contract allows the caller (ARCHITECTURE.md §5), checked before the request body is read, so
 * a forbidden call is a 403 whatever it carries. Identity tokens are limited by the operation's
 * `auth` and by acting only on their own user; API keys by their role, and by their mode where
 * the operation says (`testKeys: false`, `liveKeys: false`). Objects that carry a mode need no
 * check here: the store reads and writes them only in the caller's mode.
 */
export function authorize(principal: Principal | null, operation: AnyOperation): void {
  if (principal?.kind !== 'api_key') return;
  // The command's words, for a refusal only (not built for every request that passes).
  const words = () => `svc api ${operation.cli.join(' ')}`;
  const roles = operation.roles ?? [];
  if (!roles.includes(principal.role)) {
    throw forbidden(
      `This key's role is ${principal.role}; ${words()} (${operation.method} ${operation.path}) needs ${describeRoles(roles)}.`,
      'insufficient_role',
    );
  }
  if (!principal.livemode && operation.testKeys === false) {
    throw forbidden(
      `Test keys (svc_test_…) cannot call ${words()}: it changes live objects or moves live credits. Use a live key.`,
      'test_key_forbidden',
    );
  }
  if (principal.livemode && operation.liveKeys === false) {
    throw forbidden(`Live keys (svc_live_…) cannot call ${words()}: it belongs to test mode, for test keys (svc_test_…) only.`, 'test_key_required');
  }
}
