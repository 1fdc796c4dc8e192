import type { ErrorCode } from '../src/contract/errors.js';
import type { ApiError } from './errors.js';

/**
 * The one place an ApiError becomes what a client reads. Every route answers in its protocol's
 * shape: OpenAI's `{"error":{message,type,code,param}}`, or Anthropic's
 * `{"type":"error","error":{type,message},"request_id"}` with Anthropic's error types, so each
 * official SDK raises its own error classes (RateLimitError, OverloadedError, …).
 */
export type ErrorProtocol = 'openai' | 'anthropic';

/** What an error names itself with, in either shape (a stream's error event carries no status). */
export type ErrorFacts = Pick<ApiError, 'message' | 'type' | 'param'> & { code: string | null; status?: number };

/** Anthropic's error type for each of the gateway's, by the status Anthropic gives it. */
const ANTHROPIC_TYPES: Record<string, string> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  insufficient_credits: 'billing_error',
  card_error: 'billing_error',
  permission_denied: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit_exceeded: 'rate_limit_error',
  upstream_timeout: 'timeout_error',
};

/** An upstream that said it is overloaded (Anthropic's 529): clients back off and retry it. */
export const OVERLOADED_CODE = 'upstream_overloaded' satisfies ErrorCode;

export function anthropicErrorType(error: ErrorFacts): string {
  if (error.code === OVERLOADED_CODE) return 'overloaded_error';
  const known = ANTHROPIC_TYPES[error.type];
  if (known) return known;
  return error.status !== undefined && error.status < 500 ? 'invalid_request_error' : 'api_error';
}

/** The status an Anthropic client is answered with: the gateway's, but an overloaded upstream's 529 stays 529. */
export const anthropicStatus = (error: ErrorFacts & { status: number }) => (error.code === OVERLOADED_CODE ? 529 : error.status);

/** Anthropic's `error` object, keeping the gateway's code and param beside its type when it has them. */
export function anthropicError(error: ErrorFacts) {
  return {
    type: anthropicErrorType(error),
    message: error.message,
    ...(error.code !== null ? { code: error.code } : {}),
    ...(error.param !== null ? { param: error.param } : {}),
  };
}

/** The status and body of an error answer in `protocol`'s shape. */
export function errorAnswer(error: ApiError, protocol: ErrorProtocol, requestId: string | null): { status: number; body: unknown } {
  if (protocol === 'anthropic') {
    return { status: anthropicStatus(error), body: { type: 'error', error: anthropicError(error), request_id: requestId } };
  }
  return { status: error.status, body: { error: { message: error.message, type: error.type, code: error.code, param: error.param } } };
}
