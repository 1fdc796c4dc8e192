import type { ProviderRegistry } from '../providers/registry.js';

/**
 * The public constants of this server, in one place. The money ones are what the coming credits
 * operations use: `credits claim-daily` grants DAILY_CLAIM_CREDITS. Which payment processor
 * takes live money is a server setting (`--payments`), so the handler adds it per request.
 */
export const DEFAULT_CHAT_MODEL = 'local/echo';
export const DEFAULT_EMBEDDING_MODEL = 'local/embed';
/** 1 credit = $0.01 (SPEC, Limits). */
export const CREDIT_VALUE_USD = 0.01;
export const DAILY_CLAIM_CREDITS = 10;

/** The largest request body when the server setting `maxBodyBytes` is not given. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Page limits as the contract enforces them (SPEC, Limits; `models list` page_size is ours):
 * `limit` lists answer 50 items unless asked, at most 100 (app users: 200).
 */
const PAGE_LIMITS = {
  limit_default: 50,
  limit_max: 100,
  app_users_limit_max: 200,
  models_page_size_default: 100,
  models_page_size_max: 200,
};

/** `config list`: what a client needs to know about this server before it calls anything else. */
export function createPublicConfigService(deps: { version: string; registry: ProviderRegistry; maxBodyBytes?: number }) {
  const config = {
    version: deps.version,
    default_chat_model: DEFAULT_CHAT_MODEL,
    default_embedding_model: DEFAULT_EMBEDDING_MODEL,
    credit_value_usd: CREDIT_VALUE_USD,
    daily_claim_credits: DAILY_CLAIM_CREDITS,
    providers: deps.registry.providerIds(),
    limits: { ...PAGE_LIMITS, max_body_bytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES },
  };
  return { get: () => config };
}
