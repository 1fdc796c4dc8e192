import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { CatalogAnswer } from './catalog.js';
import { lineColumnAt, parseErrorAt, valueOffsets } from './json-location.js';
import { resolvePrices } from './model-prices.js';
import { localModels } from './local/adapter.js';
import { resolveRoutes, RoutesConfig, type RouteDefinition } from './routes-config.js';
import { IMAGE_TOKENS } from './tokens.js';
import type { Capability, ModelEntry } from './types.js';

const ProviderId = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" or "_"');

const Price = z.number().min(0).optional();
/** USD per million tokens; what a model leaves out, the catalog fills (see the README's price table). */
const TOKEN_PRICES = {
  input_price: Price,
  output_price: Price,
  /** A cache read, a 5-minute and a 1-hour cache write, per million input tokens (default: the catalog, else the provider type's published rule). */
  cached_input_price: Price,
  cache_write_price: Price,
  cache_write_1h_price: Price,
  /** Per million reasoning tokens (default: the output price). */
  reasoning_price: Price,
};
const givesAPrice = (prices: Record<string, unknown>) => Object.keys(TOKEN_PRICES).some((field) => prices[field] !== undefined);

/** Prices for a request whose input exceeds `above_input_tokens`, for the whole request. */
const PriceTierConfig = z
  .strictObject({ above_input_tokens: z.number().int().nonnegative(), ...TOKEN_PRICES })
  .refine(givesAPrice, 'a tier gives at least one price');
const PriceTiers = z
  .array(PriceTierConfig)
  .min(1)
  .refine((tiers) => new Set(tiers.map((tier) => tier.above_input_tokens)).size === tiers.length, 'two tiers start above the same input size');

/** A service tier (`service_tier: "flex"` or `"priority"`): a multiple of the standard prices, or its own prices, or both (its prices win). */
const ServiceTierConfig = z
  .strictObject({ multiplier: z.number().positive().optional(), ...TOKEN_PRICES, tiers: PriceTiers.optional() })
  .refine((tier) => tier.multiplier !== undefined || givesAPrice(tier), 'give a multiplier or prices');

const ModelConfig = z.strictObject({
  id: z.string().min(1).regex(/^\S+$/, 'must not contain spaces'),
  ...TOKEN_PRICES,
  tiers: PriceTiers.optional(),
  service_tiers: z.strictObject({ flex: ServiceTierConfig.optional(), priority: ServiceTierConfig.optional() }).optional(),
  /** USD per web search the upstream runs. */
  web_search_price: Price,
  context_length: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  /** The most one input image costs on this model, in input tokens (default: the provider type's published maximum). */
  image_tokens: z.number().int().positive().optional(),
  capabilities: z.array(z.enum(['chat', 'embeddings', 'responses', 'tools'])).optional(),
});

const ProviderConfig = z.strictObject({
  id: ProviderId.refine((id) => id !== 'local', 'local is built in').refine((id) => id !== 'route', 'route is the prefix of routes (route/<name>)'),
  type: z.enum(['openai', 'anthropic']),
  base_url: z.url({ protocol: /^https?$/ }),
  /** The environment variable that holds the key (keys never live in the file). */
  api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
  /** The upstream has the Responses API itself (else responses are translated to chat). */
  supports_responses: z.boolean().optional(),
  /** Retries of a failed request (connection, 429, 5xx) on the same provider before moving on (default 2). */
  retries: z.number().int().min(0).max(5).optional(),
  /** How long the upstream may take, in milliseconds: to connect, to answer (its headers), and between two pieces of a stream (defaults 10 s, 60 s, 60 s). */
  timeouts: z
    .strictObject({ connect_ms: z.number().int().positive().optional(), first_byte_ms: z.number().int().positive().optional(), idle_ms: z.number().int().positive().optional() })
    .optional(),
  models: z.array(ModelConfig).min(1),
});

/** `svc serve --providers FILE` / `SVC_PROVIDERS=FILE`. */
export const ProvidersFile = z.strictObject({
  providers: z.array(ProviderConfig),
  /** Named models that stand for several targets, called as `route/<name>` (README, "Models and providers"). */
  routes: RoutesConfig.optional(),
});
export type ProvidersFile = z.infer<typeof ProvidersFile>;
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** A provider ready to be built: its config, its resolved key, and its priced models. */
export interface ResolvedProvider {
  config: ProviderConfig;
  apiKey: string | null;
  models: ModelEntry[];
}

const DEFAULT_MAX_OUTPUT = 4096;

/** Every chat model also serves the Responses API: natively, or translated to chat. */
const CHAT: Capability[] = ['chat', 'tools', 'responses'];
const EMBEDDINGS: Capability[] = ['embeddings'];

/**
 * The well-known models of the built-in providers, priced by the catalog (a model the catalog
 * stops listing is left out rather than served unpriced). A providers file with the same
 * provider id replaces a built-in provider.
 */
const OPENAI_MODELS = [
  ...['gpt-6-astra', 'gpt-6-sol', 'gpt-6-luna', 'gpt-5.6-sol', 'gpt-5.6-terra', 'gpt-5.6-luna', 'gpt-5.5', 'gpt-5-mini', 'gpt-5-nano'],
  ...['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'o3', 'o4-mini'],
];
const OPENAI_EMBEDDINGS = ['text-embedding-3-small', 'text-embedding-3-large'];
const ANTHROPIC_MODELS = ['claude-opus-5-5', 'claude-opus-5', 'claude-sonnet-5', 'claude-sonnet-4-6', 'claude-opus-4-1', 'claude-haiku-4-5'];
const OPENROUTER_MODELS = [
  ...['openai/gpt-6-sol', 'openai/gpt-5.6-terra', 'openai/gpt-4o-mini', 'anthropic/claude-sonnet-5', 'anthropic/claude-sonnet-4.6'],
  ...['google/gemini-3.5-flash', 'google/gemini-2.5-flash', 'deepseek/deepseek-v4-flash', 'moonshotai/kimi-k2', 'meta-llama/llama-3.3-70b-instruct'],
];
const listed = (ids: string[], capabilities = CHAT) => ids.map((id) => ({ id, capabilities }));

/** The built-in providers that the environment configures. */
function fromEnvironment(env: NodeJS.ProcessEnv): ProviderConfig[] {
  const out: ProviderConfig[] = [];
  if (env.OPENAI_API_KEY) {
    out.push({
      id: 'openai',
      type: 'openai',
      base_url: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      api_key_env: 'OPENAI_API_KEY',
      supports_responses: true,
      models: [...listed(OPENAI_MODELS), ...listed(OPENAI_EMBEDDINGS, EMBEDDINGS)],
    });
  }
  if (env.ANTHROPIC_API_KEY) {
    out.push({
      id: 'anthropic',
      type: 'anthropic',
      base_url: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1',
      api_key_env: 'ANTHROPIC_API_KEY',
      models: listed(ANTHROPIC_MODELS),
    });
  }
  if (env.OPENROUTER_API_KEY) {
    out.push({
      id: 'openrouter',
      type: 'openai',
      base_url: 'https://openrouter.ai/api/v1',
      api_key_env: 'OPENROUTER_API_KEY',
      models: listed(OPENROUTER_MODELS),
    });
  }
  if (env.OLLAMA_BASE_URL) {
    // Self-hosted and free; which models are pulled is the operator's to say.
    const names = (env.OLLAMA_MODELS ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    if (names.length > 0) {
      out.push({
        id: 'ollama',
        type: 'openai',
        base_url: `${env.OLLAMA_BASE_URL.replace(/\/+$/, '')}/v1`,
        models: names.map((id) => ({ id, input_price: 0, output_price: 0, capabilities: CHAT })),
      });
    }
  }
  return out;
}

export class ProvidersConfigError extends Error {}

/** A parsed providers file, and where each of its values is in it (`FILE:LINE:COLUMN`), for errors. */
export interface ProvidersFileContents {
  data: ProvidersFile;
  where(path: readonly (string | number)[]): string;
}

/**
 * `FILE:LINE:COLUMN` of the value at `path`, or of the nearest enclosing one that is there (for a
 * field left out, the object that lacks it).
 */
function locator(path: string, text: string) {
  const offsetOf = valueOffsets(text);
  return (at: readonly (string | number)[]) => {
    for (let depth = at.length; depth >= 0; depth--) {
      const offset = offsetOf(at.slice(0, depth));
      if (offset !== undefined) return `${path}:${lineColumnAt(text, offset)}`;
    }
    return path;
  };
}

/** Reads and validates a providers file; the message names the file, the line and column, and the bad field. */
export function readProvidersFile(path: string): ProvidersFileContents {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProvidersConfigError(`providers file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const { message, offset } = parseErrorAt((error as Error).message, text);
    throw new ProvidersConfigError(`${path}:${lineColumnAt(text, offset)}: not valid JSON: ${message}`);
  }
  const where = locator(path, text);
  const parsed = ProvidersFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = (issue?.path ?? []).filter((key): key is string | number => typeof key !== 'symbol');
    throw new ProvidersConfigError(`${where(at)}: ${at.join('.') || '(root)'}: ${issue?.message}`);
  }
  return { data: parsed.data, where };
}

/** Why a model has no price, and what to add, in one line. */
function unpriced(id: string, missing: string[], catalog: CatalogAnswer): string {
  const inCatalog =
    catalog.kind === 'ambiguous'
      ? `the catalog prices it differently at ${catalog.providers.join(', ')}`
      : `none in the catalog${catalog.kind === 'missing' && catalog.provider ? ` (${catalog.provider})` : ''}`;
  return `model '${id}' has no price in the file and ${inCatalog}; add ${missing.join(' and ')}`;
}

/**
 * The priced models of one provider: the file's prices over the catalog's for the model where it
 * is served, field by field. A model left without an input or an output price is refused with
 * `where` it is (built-in providers leave it out instead: their lists name catalog models).
 */
export function modelEntries(
  config: ProviderConfig,
  options: { builtIn?: boolean; where?: (modelIndex: number) => string; at?: Date } = {},
): ModelEntry[] {
  const host = { type: config.type, baseUrl: config.base_url, providerId: config.id };
  return config.models.flatMap((model, index): ModelEntry[] => {
    const id = `${config.id}/${model.id}`;
    const { prices, origin, catalog } = resolvePrices(model.id, model, host, { builtIn: options.builtIn ?? false, at: options.at });
    const { inputPrice, outputPrice } = prices;
    if (inputPrice === undefined || outputPrice === undefined) {
      if (options.builtIn) return [];
      const missing = [...(inputPrice === undefined ? ['input_price'] : []), ...(outputPrice === undefined ? ['output_price'] : [])];
      throw new ProvidersConfigError(`${options.where?.(index) ?? `provider ${config.id}`}: ${unpriced(id, missing, catalog)}`);
    }
    return [
      {
        ...prices,
        id,
        provider: config.id,
        model: model.id,
        inputPrice,
        outputPrice,
        priceOrigin: origin,
        contextLength: model.context_length ?? (catalog.kind === 'found' ? catalog.contextLength : null),
        defaultMaxOutputTokens: model.max_output_tokens ?? DEFAULT_MAX_OUTPUT,
        imageTokens: model.image_tokens ?? IMAGE_TOKENS[config.type],
        capabilities: model.capabilities ?? CHAT,
      },
    ];
  });
}

/**
 * Every upstream provider, priced: the built-in ones the environment enables, then the file's (a
 * file provider with a built-in's id replaces it). A provider whose key variable is unset, and a
 * model without a price, are refused.
 */
export function resolveProviders(env: NodeJS.ProcessEnv, file: ProvidersFileContents | null, at?: Date): ResolvedProvider[] {
  const byId = new Map<string, { config: ProviderConfig; fileIndex: number | null }>();
  for (const config of fromEnvironment(env)) byId.set(config.id, { config, fileIndex: null });
  file?.data.providers.forEach((config, fileIndex) => byId.set(config.id, { config, fileIndex }));
  return [...byId.values()].map(({ config, fileIndex }) => {
    const apiKey = config.api_key_env ? (env[config.api_key_env] ?? null) : null;
    if (config.api_key_env && !apiKey) {
      throw new ProvidersConfigError(`provider ${config.id}: the environment variable ${config.api_key_env} is not set`);
    }
    const models =
      fileIndex === null || !file
        ? modelEntries(config, { builtIn: true, at })
        : modelEntries(config, { where: (index) => file.where(['providers', fileIndex, 'models', index]), at });
    return { config, apiKey, models };
  });
}

/**
 * The routes of the providers file, each target checked against the models the providers serve
 * (the local ones included); a bad one is refused with the line it is on.
 */
export function routesOf(file: ProvidersFileContents | null, providers: ResolvedProvider[]): RouteDefinition[] {
  if (!file?.data.routes) return [];
  const ids = new Set([...localModels, ...providers.flatMap((provider) => provider.models)].map((model) => model.id));
  return resolveRoutes(file.data.routes, (id) => ids.has(id), file.where, (message) => new ProvidersConfigError(message));
}
