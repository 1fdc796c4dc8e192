import { z } from 'zod';

/** RFC 3339 UTC timestamp as the API returns it. */
export const Timestamp = z.string().describe('RFC 3339 timestamp (UTC)');

/** An RFC 3339 timestamp accepted as input (any offset). */
export const TimestampInput = z.iso.datetime({ offset: true }).describe('RFC 3339 timestamp');

/**
 * An amount of credits as the API shows and accepts it: a decimal number (1 credit = $0.01).
 * Stored as integer micro-credits, so at most six decimals are kept.
 */
export const Credits = z.number().describe('Credits (1 credit = $0.01)');
export const PositiveCredits = z
  .number()
  // Not just positive: an amount below one micro-credit would round to nothing.
  .min(0.000001)
  .max(1_000_000_000)
  .describe('Credits, at least 0.000001 (1 credit = $0.01; six decimals are kept)');
export const NonNegativeCredits = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .describe('Credits, 0 or more (1 credit = $0.01; six decimals are kept)');

// Control characters on purpose: they are what the text may not hold.
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

/**
 * Free text the server keeps and shows back (names, referral ids), at most `max` characters and
 * without control characters: they would garble the terminals that list it, and a NUL cannot be
 * stored in PostgreSQL text at all.
 */
export const PlainText = (max: number, { trim = false } = {}) =>
  (trim ? z.string().trim() : z.string()).regex(NO_CONTROL_CHARACTERS, 'may not contain control characters (tabs, line breaks, NUL, …)').max(max);

/** UUIDs are case-insensitive: an upper-case one names the same app. */
export const AppUuid = z.uuid().toLowerCase().describe('App identifier (UUID)');

/** A wallet address (EVM, `0x` and 40 hex digits); the API always answers in lower case. */
export const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a wallet address: 0x followed by 40 hex digits')
  .transform((a) => a.toLowerCase())
  .describe('Wallet address (0x + 40 hex digits)');

/** Query integer: query strings arrive as text, so they are coerced, then bounded. */
function queryInt(min: number, max: number, fallback: number, description: string) {
  return z.coerce.number().int().min(min).max(max).default(fallback).describe(description);
}

export function pageQuery(maxLimit: number) {
  return {
    limit: queryInt(1, maxLimit, 50, `Items per page (1 to ${maxLimit}, default 50)`),
    offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0, 'Items to skip (default 0)'),
  };
}

/** The envelope of every `limit`/`offset` list. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    limit: z.number().int(),
    offset: z.number().int(),
    total: z.number().int(),
  });
}

export const ApiErrorBody = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string().nullable(),
    param: z.string().nullable(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

export const NoFields = z.strictObject({});

/** An acknowledgement for operations that delete or toggle something. */
export const Deleted = z.object({ id: z.string(), object: z.string(), deleted: z.literal(true) });

export const CheckoutSession = z.object({
  id: z.string(),
  object: z.literal('checkout.session'),
  url: z.string(),
  status: z.enum(['open', 'complete', 'expired']),
  credits: Credits.nullable(),
  amount_usd: z.number().nullable(),
  expires_at: Timestamp,
  livemode: z.boolean().describe('false in test mode: paid with play money, into the test balance'),
});

export const RedirectUrl = z
  .url({ protocol: /^https?$/ })
  // A browser would drop them; kept, they could not be stored in PostgreSQL text (NUL).
  .regex(NO_CONTROL_CHARACTERS, 'may not contain control characters')
  .describe('An http(s) URL');
