import type { ErrorCode, ProviderErrorCode } from '../src/contract/errors.js';
import { UnreadableBudgetPeriodError } from './store/budget-standing.js';
import { BalanceLimitError, StoreUnavailableError } from './store/types.js';

/**
 * The one error type that crosses layers. Services throw it through the factories below; the
 * HTTP layer turns it into the OpenAI-shaped error body `{error: {message, type, code, param}}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** Declared in the contract (src/contract/errors.ts); a provider's own code only when passed on as such. */
    readonly code: ErrorCode | ProviderErrorCode | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: ErrorCode = 'invalid_value') =>
  new ApiError(400, 'invalid_request_error', message, code, param);
export const unauthorized = (message: string, code: ErrorCode = 'invalid_credentials') =>
  new ApiError(401, 'authentication_error', message, code);
export const insufficientCredits = (message: string) =>
  new ApiError(402, 'insufficient_credits', message, 'insufficient_credits');
export const forbidden = (message: string, code: ErrorCode = 'permission_denied') =>
  new ApiError(403, 'permission_denied', message, code);
export const notFound = (message: string, code: ErrorCode = 'not_found', param: string | null = null) =>
  new ApiError(404, 'not_found', message, code, param);
export const conflict = (message: string, code: ErrorCode = 'conflict') => new ApiError(409, 'conflict', message, code);
export const notImplemented = (operationId: string) =>
  new ApiError(
    501,
    'not_implemented',
    `The operation ${operationId} is part of the API but not built into this server yet.`,
    'not_implemented',
  );

/**
 * The API error a failure from below the services stands for, in one place: the store's own
 * errors (an unreachable database, a balance past exact arithmetic). Null for anything else, which
 * is either an ApiError already or a bug.
 */
export function apiErrorOf(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ApiError(503, 'service_unavailable', 'The database cannot be reached right now; retry shortly.', 'database_unavailable', null, {
      'retry-after': '1',
    });
  }
  if (error instanceof BalanceLimitError) {
    return new ApiError(409, 'conflict', 'This would take a balance past 9,007,199,254 credits (2^53 micro-credits), the most kept exactly.', 'balance_limit');
  }
  // A budget that cannot be read has no room: refused (fail closed), never spent as if unlimited.
  if (error instanceof UnreadableBudgetPeriodError) return new ApiError(402, 'insufficient_credits', error.message, 'budget_exceeded');
  return null;
}
