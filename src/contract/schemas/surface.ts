import { z } from 'zod';
import { KEY_ROLES } from '../operation.js';
import { Address, Credits, Timestamp } from './common.js';

/** How live money comes in: Stripe, the sandbox processor (play money), or not at all. */
export const PAYMENT_MODES = ['stripe', 'sandbox', 'off'] as const;
export type PaymentsMode = (typeof PAYMENT_MODES)[number];

export const Channel = z.enum(['sms', 'messenger']).describe('sms or messenger');
export const ChannelParams = z.strictObject({ channel: Channel });

export const TextRegistration = z.object({
  channel: Channel,
  identifier: z.string().nullable(),
  preferred_model: z.string().nullable(),
  registered: z.boolean(),
});

export const TextRegisterBody = z.strictObject({
  identifier: z.string().min(1).max(200).describe('For sms an E.164 phone number, e.g. +14155550123'),
  preferred_model: z.string().min(1).optional().describe('Preferred model for the channel'),
});

export const TextLookupQuery = z.strictObject({
  identifier: z.string().min(1).max(200).describe('The identifier to look up'),
});

export const Agent = z.object({
  id: z.string(),
  object: z.literal('agent'),
  name: z.string(),
  description: z.string(),
  default_model: z.string(),
  system_prompt: z.string(),
  tools: z.array(z.string()),
});
export const AgentList = z.object({ object: z.literal('list'), data: z.array(Agent) });

export const PublicConfig = z.looseObject({
  version: z.string(),
  default_chat_model: z.string(),
  default_embedding_model: z.string(),
  credit_value_usd: z.number(),
  daily_claim_credits: Credits,
  providers: z.array(z.string()),
  payment_processor: z.enum(PAYMENT_MODES).describe('How live money comes in (test mode always uses the sandbox)'),
  caller: z
    .object({
      kind: z.enum(['api_key', 'user']),
      app_uuid: z.string(),
      role: z.enum(KEY_ROLES).nullable().describe('The key role; null for an end user'),
      livemode: z.boolean().describe('false for a test key or a sandbox user'),
    })
    .describe('Who is calling: the app the key or user belongs to'),
});

export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  time: Timestamp,
  payments: z
    .enum(PAYMENT_MODES)
    .describe('How live money comes in: stripe, sandbox (development: no real money moves) or off (operator grants only)'),
});

export const Jwks = z.object({ keys: z.array(z.looseObject({ kty: z.string() })) });

/** Identity-provider app ids starting with this use the built-in sandbox identity provider. */
export const SANDBOX_IDP_PREFIX = 'sandbox_';

export const SandboxIdentityTokenBody = z.strictObject({
  address: Address.optional().describe(
    'The test wallet the token stands for (default: a fixed wallet derived from the API key’s app, the same on every call)',
  ),
  expires_in: z.number().int().min(60).max(86_400).default(3600).describe('Lifetime in seconds (60 to 86400, default 3600)'),
});

export const SandboxIdentityToken = z.object({
  token: z.string().describe('The identity token: send it as Authorization: Bearer'),
  address: z.string().describe('The wallet the token stands for (lower case)'),
  expires_at: Timestamp,
  issuer: z.string().describe('The token’s iss (the sandbox issuer, never the real identity provider’s)'),
  audience: z.string().describe('The token’s aud: the app’s sandbox idp_app_id'),
});
