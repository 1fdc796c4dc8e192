import type { AnyOperation } from './operation.js';

/**
 * Every error code the API answers with, declared once: its HTTP status and what it means. The
 * server's `ApiError` takes only these (an undeclared code fails the typecheck), and the OpenAPI
 * document lists, per operation, the codes it can answer. Spellings are part of the API: clients
 * branch on them, so a code is never renamed.
 */
export const ERROR_CODES = {
  // Requests that cannot be read or that break the contract (400, 413, 408, 431).
  invalid_json: { status: 400, meaning: 'The body is not valid JSON.' },
  json_too_deep: { status: 400, meaning: 'The JSON body nests deeper than the server reads.' },
  unexpected_body: { status: 400, meaning: 'The operation takes no body, or the body is not a JSON object.' },
  unknown_field: { status: 400, meaning: 'A field the operation does not know (param names it).' },
  missing_field: { status: 400, meaning: 'A required field is missing (param names it).' },
  invalid_value: { status: 400, meaning: 'A field has a value the operation does not accept (param names it).' },
  unsupported_parameter: { status: 400, meaning: 'A known parameter the gateway or the chosen model does not support.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not sent as application/json.' },
  request_too_large: { status: 413, meaning: 'The body is larger than the server accepts.' },
  request_timeout: { status: 408, meaning: 'The request took too long to arrive.' },
  headers_too_large: { status: 431, meaning: 'The request headers are too large.' },
  malformed_request: { status: 400, meaning: 'The request is not valid HTTP/1.1.' },
  model_not_supported: { status: 400, meaning: 'The model exists but cannot serve this operation.' },
  service_tier_not_priced: { status: 400, meaning: 'The model has no price for the service tier asked for.' },
  tool_not_priced: { status: 400, meaning: 'A hosted tool billed per use that this server has no price for (code interpreter, file search, image generation).' },
  item_not_found: { status: 400, meaning: 'An item the request refers to is not in the response or recent history.' },
  response_not_streamable: { status: 400, meaning: 'The response was not created with stream: true, so it cannot be streamed.' },
  expiry_in_past: { status: 400, meaning: 'The expiry asked for is already past.' },
  invalid_card: { status: 400, meaning: 'The card details are not valid.' },
  invalid_event: { status: 400, meaning: 'A webhook event the server cannot read.' },
  signature_missing: { status: 400, meaning: 'A webhook without its signature header.' },
  signature_malformed: { status: 400, meaning: 'A webhook signature header that cannot be read.' },
  signature_invalid: { status: 400, meaning: 'A webhook signature that does not match its body.' },
  signature_stale: { status: 400, meaning: 'A webhook signed too long ago (a possible replay).' },
  requirement_not_met: { status: 400, meaning: 'The task a reward is claimed for is not done yet.' },
  test_key_cannot_be_admin: { status: 400, meaning: 'A test key is never given the admin role.' },
  user_required: { status: 400, meaning: 'The operation needs a user named (an app backend acts for one of its users).' },
  upstream_rejected: { status: 400, meaning: 'The provider refused the request itself (the provider\'s own code is passed on when it names one).' },

  // Who the caller is (401).
  missing_credentials: { status: 401, meaning: 'No API key or identity token was sent.' },
  invalid_credentials: { status: 401, meaning: 'The credentials sent are not valid.' },
  invalid_api_key: { status: 401, meaning: 'The API key is unknown or revoked.' },
  key_expired: { status: 401, meaning: 'The API key is past its expiry.' },
  invalid_identity_token: { status: 401, meaning: 'The identity token is not valid, expired, or not for this server.' },

  // Money (402).
  insufficient_credits: { status: 402, meaning: 'The balance cannot pay what the request may cost.' },
  budget_exceeded: { status: 402, meaning: 'A budget (the app\'s or the user\'s) has no room for what the request may cost.' },
  sponsor_cannot_pay: { status: 402, meaning: 'The account that pays a claim (the app, or the promotions account) cannot pay it.' },
  card_declined: { status: 402, meaning: 'The card was declined.' },

  // What the caller may do (403).
  permission_denied: { status: 403, meaning: 'The caller may not do this.' },
  insufficient_role: { status: 403, meaning: 'The API key\'s role does not allow this operation.' },
  test_key_not_allowed: { status: 403, meaning: 'Test keys and sandbox tokens reach only the offline local provider; this model needs a live key.' },
  test_key_required: { status: 403, meaning: 'The operation belongs to test mode; a live key may not call it.' },
  test_key_forbidden: { status: 403, meaning: 'A test key may not call this operation: it changes live objects or moves live credits.' },
  origin_not_allowed: { status: 403, meaning: 'The request\'s Origin is not one the app allows.' },
  user_claims_disabled: { status: 403, meaning: 'The app does not let its users claim credits.' },
  metrics_loopback_only: { status: 403, meaning: 'Without a metrics token, /metrics answers only the loopback interface.' },

  // What does not exist (404).
  not_found: { status: 404, meaning: 'The object asked for does not exist (or is not the caller\'s).' },
  route_not_found: { status: 404, meaning: 'No operation has this path.' },
  app_not_found: { status: 404, meaning: 'No such app of the caller\'s.' },
  api_key_not_found: { status: 404, meaning: 'No such API key of the caller\'s.' },
  user_not_found: { status: 404, meaning: 'No such user of the app in this mode.' },
  model_not_found: { status: 404, meaning: 'No model or route by that name.' },
  response_not_found: { status: 404, meaning: 'No such stored response.' },
  checkout_session_not_found: { status: 404, meaning: 'No such checkout session.' },
  portal_session_not_found: { status: 404, meaning: 'No such billing portal session.' },
  idp_not_configured: { status: 404, meaning: 'The app has no identity provider configured.' },
  method_not_allowed: { status: 405, meaning: 'The path exists but not with this method (Allow names the ones it takes).' },

  // State that forbids the change (409).
  conflict: { status: 409, meaning: 'The change conflicts with the object\'s current state.' },
  balance_limit: { status: 409, meaning: 'The change would take a balance past 2^53 micro-credits, the most kept exactly.' },
  identifier_taken: { status: 409, meaning: 'The identifier is already taken.' },
  idp_app_id_taken: { status: 409, meaning: 'Another app already uses this identity provider app id.' },
  app_holds_credits: { status: 409, meaning: 'The app still holds credits; move them before deleting it.' },
  app_requests_in_flight: { status: 409, meaning: 'The app has requests in flight; retry once they finish.' },
  already_claimed: { status: 409, meaning: 'This reward is already claimed.' },
  already_paid: { status: 409, meaning: 'This checkout is already paid.' },
  checkout_session_expired: { status: 409, meaning: 'This checkout session has expired.' },
  already_subscribed: { status: 409, meaning: 'There is already a running subscription.' },
  no_subscription: { status: 409, meaning: 'There is no subscription to change.' },
  no_active_subscription: { status: 409, meaning: 'The subscription is not active.' },
  subscription_canceling: { status: 409, meaning: 'The subscription is set to cancel; renew it first.' },
  already_canceling: { status: 409, meaning: 'The subscription is already set to cancel.' },
  not_canceling: { status: 409, meaning: 'The subscription is not set to cancel, so there is nothing to renew.' },
  not_an_upgrade: { status: 409, meaning: 'The plan asked for is not higher than the current one.' },
  not_a_downgrade: { status: 409, meaning: 'The plan asked for is not lower than the current one.' },
  plan_not_on_sale: { status: 409, meaning: 'The plan asked for is not on sale on this server (its price at the payment processor is not configured).' },
  no_scheduled_downgrade: { status: 409, meaning: 'No downgrade is scheduled to cancel.' },
  sandbox_idp_required: { status: 409, meaning: 'The app does not use the sandbox identity provider (its idp_app_id must start sandbox_).' },
  no_customer: { status: 409, meaning: 'The subscription has no payment processor customer yet.' },
  response_not_cancellable: { status: 409, meaning: 'Only a background response still running can be cancelled.' },

  // Too many requests (429).
  rate_limit_exceeded: { status: 429, meaning: 'The app\'s rate limit is reached; Retry-After says when to retry.' },
  upstream_rate_limited: { status: 429, meaning: 'The provider is rate-limiting this server.' },

  // The server and what is behind it (5xx).
  internal_error: { status: 500, meaning: 'A bug in the server; the message names the request id to report.' },
  not_implemented: { status: 501, meaning: 'The operation is in the API but not built into this server.' },
  upstream_error: { status: 502, meaning: 'The provider failed.' },
  upstream_unreachable: { status: 502, meaning: 'The provider could not be reached.' },
  upstream_bad_response: { status: 502, meaning: 'The provider sent an answer that could not be read.' },
  upstream_auth_failed: { status: 502, meaning: 'The provider refused this server\'s credentials (the operator must fix them).' },
  upstream_overloaded: { status: 502, meaning: 'The provider is overloaded (Anthropic clients see 529); retry shortly.' },
  payment_processor_error: { status: 502, meaning: 'The payment processor refused or failed.' },
  points_unavailable: { status: 502, meaning: 'The points program did not answer usefully.' },
  circuit_open: { status: 503, meaning: 'Every target of the route is failing (circuit open); retry shortly.' },
  database_unavailable: { status: 503, meaning: 'The database cannot be reached; retry shortly.' },
  payments_not_configured: { status: 503, meaning: 'Live payments are not configured on this server.' },
  points_not_configured: { status: 503, meaning: 'No points program is configured on this server.' },
  upstream_timeout: { status: 504, meaning: 'The provider timed out.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A provider's own error code, passed on as is when the provider refuses a request and names why
 * (e.g. `context_length_exceeded`): the one kind of code the gateway does not declare, marked so
 * that no free string slips into `ApiError` unnoticed.
 */
export type ProviderErrorCode = string & { readonly providerCode: true };
export const providerErrorCode = (code: string) => code as ProviderErrorCode;

/**
 * Codes answered outside any one operation: by the HTTP parser before routing, for paths no
 * operation has, by the metrics endpoint and the sandbox's checkout pages, and the defaults of the
 * server's error factories. The OpenAPI document lists them with every other code.
 */
export const CODES_OUTSIDE_OPERATIONS: readonly ErrorCode[] = [
  'request_timeout',
  'headers_too_large',
  'malformed_request',
  'route_not_found',
  'method_not_allowed',
  'origin_not_allowed',
  'metrics_loopback_only',
  'not_implemented',
  'invalid_credentials',
  'permission_denied',
  'conflict',
  'checkout_session_not_found',
  'checkout_session_expired',
  'already_paid',
  'card_declined',
  'invalid_card',
  'portal_session_not_found',
];

/** Codes any operation can answer: a body the server cannot read, or a server that cannot serve. */
const ALWAYS: readonly ErrorCode[] = ['unknown_field', 'missing_field', 'invalid_value', 'internal_error', 'database_unavailable'];
const WITH_BODY: readonly ErrorCode[] = ['invalid_json', 'json_too_deep', 'unexpected_body', 'unsupported_media_type', 'request_too_large'];
const BY_API_KEY: readonly ErrorCode[] = ['missing_credentials', 'invalid_api_key', 'key_expired', 'rate_limit_exceeded'];
const BY_IDENTITY_TOKEN: readonly ErrorCode[] = ['missing_credentials', 'invalid_identity_token'];
const METERED: readonly ErrorCode[] = [
  'insufficient_credits',
  'budget_exceeded',
  'model_not_found',
  'model_not_supported',
  'unsupported_parameter',
  'upstream_rejected',
  'upstream_error',
  'upstream_unreachable',
  'upstream_bad_response',
  'upstream_auth_failed',
  'upstream_overloaded',
  'upstream_rate_limited',
  'upstream_timeout',
  'circuit_open',
  'test_key_not_allowed',
];

/**
 * The codes an operation can answer: those its declaration implies (its body, its auth, its
 * roles and modes, metering) and those it lists itself, in the order of their status.
 */
export function errorCodesOf(op: AnyOperation): ErrorCode[] {
  const codes = new Set<ErrorCode>(ALWAYS);
  const add = (list: readonly ErrorCode[]) => list.forEach((code) => codes.add(code));
  if (op.body || op.rawBody || op.method === 'POST') add(WITH_BODY);
  if (op.auth.includes('api_key')) add(BY_API_KEY);
  if (op.auth.includes('identity_token')) add(BY_IDENTITY_TOKEN);
  if (op.roles && op.roles.length < 3) codes.add('insufficient_role');
  if (op.testKeys === false) codes.add('test_key_forbidden');
  if (op.liveKeys === false) codes.add('test_key_required');
  if (op.metered) add(METERED);
  add(op.errors ?? []);
  return [...codes].sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status || a.localeCompare(b));
}
