import type { z } from 'zod';
import { OVERLOADED_CODE } from '../error-shapes.js';
import { providerErrorCode } from '../../src/contract/errors.js';
import { ApiError } from '../errors.js';

/**
 * Upstream failures, as the caller sees them. The provider is named; its URL, keys and raw
 * answer are not (an upstream's message is passed on only where the fault is the request's).
 */

export const upstreamUnreachable = (provider: string, detail: string) =>
  new ApiError(502, 'upstream_error', `The provider '${provider}' could not be reached (${detail}).`, 'upstream_unreachable');

export const upstreamTimeout = (provider: string, phase: 'connect' | 'first byte' | 'idle') =>
  new ApiError(504, 'upstream_timeout', `The provider '${provider}' timed out (${phase}).`, 'upstream_timeout');

/** A 5xx from the upstream; 529 is its "overloaded", which the Messages API answers as 529 again. */
export const upstreamFailed = (provider: string, status: number) =>
  status === 529
    ? new ApiError(502, 'upstream_error', `The provider '${provider}' is overloaded (HTTP 529); retry shortly.`, OVERLOADED_CODE)
    : new ApiError(502, 'upstream_error', `The provider '${provider}' failed (HTTP ${status}).`, 'upstream_error');

export const upstreamBadResponse = (provider: string, detail: string) =>
  new ApiError(502, 'upstream_error', `The provider '${provider}' sent an answer that could not be read (${detail}).`, 'upstream_bad_response');

export const upstreamRejectedCredentials = (provider: string) =>
  new ApiError(
    502,
    'upstream_error',
    `The provider '${provider}' refused this server's credentials; the server's operator must fix its API key.`,
    'upstream_auth_failed',
  );

export const upstreamRateLimited = (provider: string, retryAfterSeconds: number | null) =>
  new ApiError(
    429,
    'rate_limit_exceeded',
    `The provider '${provider}' is rate-limiting this server${retryAfterSeconds !== null ? `; retry after ${retryAfterSeconds} s` : ''}.`,
    'upstream_rate_limited',
    null,
    retryAfterSeconds !== null ? { 'retry-after': String(retryAfterSeconds) } : {},
  );

/** The upstream refused the request itself (400, 404, 413, 422): the caller can fix it. */
/** An upstream's 4xx: its message, and its `code` and `param` when it names them. */
export const upstreamRejectedRequest = (provider: string, status: number, said: { message: string; code: string | null; param: string | null }) =>
  new ApiError(
    400,
    'invalid_request_error',
    `The provider '${provider}' refused the request (HTTP ${status}): ${said.message}`,
    said.code !== null ? providerErrorCode(said.code) : 'upstream_rejected',
    said.param,
  );

/** An error the upstream sent in the middle of a stream: a 502 that passes its message on. */
export const upstreamStreamError = (provider: string, message: string) =>
  new ApiError(502, 'upstream_error', `The provider '${provider}' failed mid-stream: ${message.slice(0, 500)}`, 'upstream_error');

/** `value` as `schema` reads it (upstream answers are a boundary), or a 502 naming the bad part. */
export function parseUpstream<T extends z.ZodType>(provider: string, schema: T, value: unknown, what: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw upstreamBadResponse(provider, `${what}: ${issue?.path.join('.') || 'the whole'} ${issue?.message ?? 'is not valid'}`);
}
