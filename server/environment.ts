import { z } from 'zod';
import { DEFAULT_CONNECTIONS_PER_CLIENT } from './config.js';
import { PAYMENT_MODES } from './payments/processors.js';
import { PLAN_PRICE_VARIABLES, type PlanPriceVariable } from './payments/plans.js';

/**
 * Every environment variable the server reads, declared once and parsed once at start: a bad value
 * refuses to start with one line naming the variable and what it must be. Names it cannot list are
 * read where they are used: the key variable a providers file names (`api_key_env`) and
 * OpenTelemetry's `OTEL_*` (server/metrics/traces.ts).
 */

/** Text, or unset (set but empty is unset: readServerEnvironment drops empty values first). */
const optionalText = (description: string) => z.string().optional().describe(description);

/** A whole number within bounds; `must` finishes "NAME must …" in the error. */
const wholeNumber = (least: number, most: number, must: string, description: string) =>
  z
    .string()
    .refine((value) => {
      const n = Number(value);
      return Number.isSafeInteger(n) && n >= least && n <= most;
    }, must)
    .transform(Number)
    .optional()
    .describe(description);

/** A secret: checked for length, never echoed in an error. */
const secret = (description: string) => z.string().min(16, 'be at least 16 characters').optional().describe(description);

export const ServerEnvironment = z.object({
  SVC_PROVIDERS: optionalText('The providers file (YAML or JSON): providers, models, prices, routes (`svc serve --providers` wins).'),
  OPENAI_API_KEY: optionalText('Configures the built-in OpenAI provider.'),
  OPENAI_BASE_URL: optionalText('Where the OpenAI provider is reached (default https://api.openai.com/v1).'),
  ANTHROPIC_API_KEY: optionalText('Configures the built-in Anthropic provider.'),
  ANTHROPIC_BASE_URL: optionalText('Where the Anthropic provider is reached (default https://api.anthropic.com/v1).'),
  OPENROUTER_API_KEY: optionalText('Configures the built-in OpenRouter provider.'),
  OLLAMA_BASE_URL: optionalText('Configures an Ollama provider at this URL (with OLLAMA_MODELS).'),
  OLLAMA_MODELS: optionalText('The Ollama models to serve, comma-separated.'),
  SVC_PAYMENTS: z
    .enum(PAYMENT_MODES, { error: `be one of ${PAYMENT_MODES.join(', ')}` })
    .optional()
    .describe('How live money comes in: off, sandbox or stripe (`--payments` wins; default: stripe when its keys are set, else off).'),
  STRIPE_SECRET_KEY: optionalText("Stripe's secret key (with STRIPE_WEBHOOK_SECRET) for live payments."),
  STRIPE_WEBHOOK_SECRET: optionalText("Stripe's webhook signing secret (with STRIPE_SECRET_KEY)."),
  // A price id mistyped (a product id, a stray character) would otherwise surface as a failed checkout.
  ...(Object.fromEntries(
    PLAN_PRICE_VARIABLES.map((name) => {
      const [, , tier, interval] = name.toLowerCase().split('_');
      // price_svc_… are the sandbox's own ids, which unset plans keep: one given to another plan would be two plans' price.
      const price = z
        .string()
        .regex(/^price_[A-Za-z0-9_]+$/, 'be a Stripe price id (price_…)')
        .refine((value) => !value.startsWith('price_svc_'), "be a Stripe price id, not one of svc's own (price_svc_…)")
        .optional();
      return [name, price.describe(`The Stripe price id of the ${tier} plan billed ${interval}ly, with STRIPE_SECRET_KEY.`)];
    }),
  ) as Record<PlanPriceVariable, z.ZodOptional<z.ZodString>>),
  SVC_STRIPE_API_URL: optionalText("Where Stripe's API is reached (tests point it at a fake)."),
  SVC_PAYMENT_WEBHOOK_SECRET: secret("The sandbox processor's webhook secret, at least 16 characters (default: a fresh one per start)."),
  SVC_METRICS_TOKEN: optionalText('The bearer token GET /metrics asks for, at least 16 characters (unset: loopback only).').refine(
    (value) => value === undefined || value.length >= 16,
    'be at least 16 characters',
  ),
  SVC_DB_SYNCHRONOUS: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(['normal', 'full'], { error: 'be normal or full' }))
    .optional()
    .describe("SQLite's synchronous setting: normal (the default) or full."),
  SVC_PG_POOL: wholeNumber(2, 1000, 'be a whole number from 2 to 1000', 'Connections per instance to PostgreSQL, 2 to 1000.'),
  SVC_MAX_CONNECTIONS_PER_CLIENT: wholeNumber(
    1,
    Number.MAX_SAFE_INTEGER,
    'be a whole number from 1',
    `Open connections one client may hold (default ${DEFAULT_CONNECTIONS_PER_CLIENT}); raise it behind a reverse proxy.`,
  ),
  SVC_AGENTS: optionalText('The agents file (YAML or JSON) the agents operations serve.'),
  SVC_POINTS_URL: optionalText('The points program users convert points from (credits sync-points).'),
  SVC_POINTS_CREDITS_PER_POINT: z
    .string()
    .refine((value) => Number.isFinite(Number(value)) && Number(value) > 0, 'be a positive number')
    .transform(Number)
    .optional()
    .describe('Credits per point of the points program (default 1).'),
}).check((ctx) => {
  // One price for two plans would sell (and renew) every subscription at it as the first of them.
  const seen = new Map<string, PlanPriceVariable>();
  for (const name of PLAN_PRICE_VARIABLES) {
    const price = ctx.value[name];
    if (price === undefined) continue;
    const first = seen.get(price);
    if (first) ctx.issues.push({ code: 'custom', input: price, path: [name], message: `be a price of its own, not ${first}'s too` });
    else seen.set(price, name);
  }
});
export type ServerEnvironment = z.output<typeof ServerEnvironment>;

/**
 * The variables that are set: set but empty is unset (`VAR=` in a shell, a .env file or compose
 * switches it off), as most tools and the OpenTelemetry specification read it.
 */
export const setVariables = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));

/** Variables whose value is never repeated in an error. */
const SECRETS = new Set(['SVC_PAYMENT_WEBHOOK_SECRET', 'SVC_METRICS_TOKEN', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']);

/**
 * The server's environment, parsed; throws one line for the first bad variable:
 * `SVC_PG_POOL must be a whole number from 2 to 1000 (got "1").`
 */
export function readServerEnvironment(env: NodeJS.ProcessEnv): ServerEnvironment {
  const result = ServerEnvironment.safeParse(setVariables(env));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  const got = SECRETS.has(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
  throw new Error(`${name} must ${issue?.message ?? 'be valid'}${got}.`);
}
