import { z } from 'zod';
import { PAYMENT_MODES } from './payments/processors.js';

/** Server settings; every field has a default so `svc serve` runs with none. */
export const ServerSettings = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8787),
  /** SQLite file, `:memory:`, or a PostgreSQL URL (postgres://…) for several instances over one database. */
  dbPath: z.string().min(1),
  maxBodyBytes: z.number().int().positive().default(1024 * 1024),
  /** Credits granted to the owner's default app on an empty database. */
  startingGrantCredits: z.number().min(0).default(100),
  validateResponses: z.boolean().default(false),
  /** Open connections at most (streams hold theirs for the whole answer); node closes any more at once. */
  maxConnections: z.number().int().positive().default(4096),
  /**
   * Open connections one client (an IPv4 address, an IPv6 /64) may hold, so that one client cannot
   * take every slot. Unset: SVC_MAX_CONNECTIONS_PER_CLIENT, else DEFAULT_CONNECTIONS_PER_CLIENT.
   * Behind a reverse proxy every connection comes from the proxy: raise it to maxConnections there.
   */
  maxConnectionsPerClient: z.number().int().positive().optional(),
  /** How long a client may take to send its headers, and its whole request (not the answer). */
  headersTimeoutMs: z.number().int().positive().default(30_000),
  requestTimeoutMs: z.number().int().positive().default(120_000),
  /** How long shutdown waits for requests in flight before closing their connections. */
  shutdownGraceMs: z.number().int().min(0).default(10_000),
  /** The issuer (`iss`) identity tokens must carry. */
  identityIssuer: z.string().min(1).default('privy.io'),
  /** Per key and per user, unless an app sets its own (rate_limit_rpm, rate_limit_tpm). */
  rateLimitRequestsPerMinute: z.number().int().positive().default(600),
  rateLimitTokensPerMinute: z.number().int().positive().default(1_000_000),
  /**
   * How live money comes in: `stripe`, `sandbox` (development), or `off`. Unset: Stripe when its
   * keys are in the environment, else off (SVC_PAYMENTS in the environment is read too).
   */
  payments: z.enum(PAYMENT_MODES).optional(),
  /** Signs and verifies payment-processor events (a fresh random one per start when not set). */
  paymentWebhookSecret: z.string().min(16).optional(),
  /** The bearer token `GET /metrics` asks for; unset, SVC_METRICS_TOKEN, else loopback only. */
  metricsToken: z.string().min(16).optional(),
});
export type ServerSettings = z.input<typeof ServerSettings>;

/** A sixteenth of the default 4,096 connections: plenty for one client's pool of streams. */
export const DEFAULT_CONNECTIONS_PER_CLIENT = 256;
