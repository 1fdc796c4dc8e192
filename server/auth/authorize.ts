import { describeRoles, type AnyOperation } from '../../src/contract/operation.js';
import { forbidden } from '../errors.js';
import type { Principal } from './principal.js';

/**
 * What the contract allows the caller (DESIGN §5), checked before the request body is read, so
 * a forbidden call is a 403 whatever it carries. Identity tokens are limited by the operation's
 * `auth` and by acting only on their own user; API keys by their role, and test keys also by
 * `testKeys: false`.
 */
export function authorize(principal: Principal | null, operation: AnyOperation): void {
  if (principal?.kind !== 'api_key') return;
  const words = `svc api ${operation.cli.join(' ')}`;
  const roles = operation.roles ?? [];
  if (!roles.includes(principal.role)) {
    throw forbidden(
      `This key's role is ${principal.role}; ${words} (${operation.method} ${operation.path}) needs ${describeRoles(roles)}.`,
      'insufficient_role',
    );
  }
  if (principal.isTest && operation.testKeys === false) {
    throw forbidden(
      `Test keys (svc_test_…) cannot call ${words}: it changes live objects or moves live credits. Use a live key.`,
      'test_key_forbidden',
    );
  }
}
