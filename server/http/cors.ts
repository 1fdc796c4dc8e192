import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { forbidden } from '../errors.js';

const ALLOWED_HEADERS = 'X-API-KEY, Authorization, Content-Type, X-SVC-App';
/** What a browser's script may read of an answer: ids, retry and rate-limit headers (svc's, OpenAI's, Anthropic's), svc's own. */
const EXPOSED_HEADERS = [
  'x-request-id, request-id, retry-after',
  'x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens',
  'x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-ratelimit-reset-tokens',
  'anthropic-ratelimit-requests-limit, anthropic-ratelimit-requests-remaining, anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-limit, anthropic-ratelimit-tokens-remaining, anthropic-ratelimit-tokens-reset',
  'x-svc-budget-remaining, x-svc-budget-reset, x-svc-route, x-svc-attempts',
].join(', ');

/** A preflight: answered without credentials, for any origin; the real request is checked. */
export function answerPreflight(res: ServerResponse, origin: string | undefined, allow: string[]): void {
  res.writeHead(204, {
    'access-control-allow-origin': origin ?? '*',
    'access-control-allow-methods': allow.join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '600',
    vary: 'Origin',
  });
  res.end();
}

/**
 * Browser requests (those with an `Origin`): an API key may be used only from its app's
 * `allowed_origins` (403 otherwise); identity tokens are meant for browsers and public
 * operations are for everyone, so both answer any origin.
 */
export function applyCors(res: ServerResponse, origin: string | undefined, principal: Principal | null): void {
  if (!origin) return;
  if (principal?.kind === 'api_key' && !principal.app.allowedOrigins.includes(origin)) {
    throw forbidden(
      `Requests from ${origin} may not use this app's API keys: add the origin to the app's allowed_origins, or sign users in with identity tokens.`,
      'origin_not_allowed',
    );
  }
  res.setHeader('access-control-allow-origin', principal ? origin : '*');
  res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
  res.setHeader('vary', 'Origin');
}
