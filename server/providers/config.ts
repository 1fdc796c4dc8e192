import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { IMAGE_TOKENS } from './tokens.js';
import type { Capability, ModelEntry } from './types.js';

const ProviderId = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" or "_"');

const ModelConfig = z.strictObject({
  id: z.string().min(1).regex(/^\S+$/, 'must not contain spaces'),
  /** USD per million tokens. */
  input_price: z.number().min(0),
  output_price: z.number().min(0),
  /** A cache read, a 5-minute and a 1-hour cache write, per million input tokens (default: the provider type's published rule). */
  cached_input_price: z.number().min(0).optional(),
  cache_write_price: z.number().min(0).optional(),
  cache_write_1h_price: z.number().min(0).optional(),
  /** Per million reasoning tokens (default: the output price). */
  reasoning_price: z.number().min(0).optional(),
  context_length: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  /** The most one input image costs on this model, in input tokens (default: the provider type's published maximum). */
  image_tokens: z.number().int().positive().optional(),
  capabilities: z.array(z.enum(['chat', 'embeddings', 'responses', 'tools'])).optional(),
});

const ProviderConfig = z.strictObject({
  id: ProviderId.refine((id) => id !== 'local', 'local is built in'),
  type: z.enum(['openai', 'anthropic']),
  base_url: z.url({ protocol: /^https?$/ }),
  /** The environment variable that holds the key (keys never live in the file). */
  api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
  /** The upstream has the Responses API itself (else responses are translated to chat). */
  supports_responses: z.boolean().optional(),
  models: z.array(ModelConfig).min(1),
});

/** `svc serve --providers FILE` / `SVC_PROVIDERS=FILE`. */
export const ProvidersFile = z.strictObject({ providers: z.array(ProviderConfig) });
export type ProvidersFile = z.infer<typeof ProvidersFile>;
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** A provider ready to be built: its config and its resolved key. */
export interface ResolvedProvider {
  config: ProviderConfig;
  apiKey: string | null;
}

const DEFAULT_MAX_OUTPUT = 4096;

type PriceTable = [id: string, input: number, output: number, context: number, capabilities?: Capability[]][];
/** Every chat model also serves the Responses API: natively, or translated to chat. */
const CHAT: Capability[] = ['chat', 'tools', 'responses'];

/**
 * List prices (USD per million tokens) of the well-known models of the built-in providers, as
 * published when this table was written. A providers file with the same provider id replaces
 * a built-in provider, prices included.
 */
const OPENAI_MODELS: PriceTable = [
  ['gpt-4.1', 2, 8, 1_047_576],
  ['gpt-4.1-mini', 0.4, 1.6, 1_047_576],
  ['gpt-4.1-nano', 0.1, 0.4, 1_047_576],
  ['gpt-4o', 2.5, 10, 128_000],
  ['gpt-4o-mini', 0.15, 0.6, 128_000],
  ['o4-mini', 1.1, 4.4, 200_000],
  ['text-embedding-3-small', 0.02, 0, 8191, ['embeddings']],
  ['text-embedding-3-large', 0.13, 0, 8191, ['embeddings']],
];
const ANTHROPIC_MODELS: PriceTable = [
  ['claude-opus-4-1', 15, 75, 200_000],
  ['claude-sonnet-4-5', 3, 15, 200_000],
  ['claude-haiku-4-5', 1, 5, 200_000],
];
const OPENROUTER_MODELS: PriceTable = [
  ['openai/gpt-4o-mini', 0.15, 0.6, 128_000],
  ['anthropic/claude-sonnet-4.5', 3, 15, 200_000],
  ['meta-llama/llama-3.3-70b-instruct', 0.13, 0.4, 131_072],
  ['google/gemini-2.5-flash', 0.3, 2.5, 1_048_576],
];

function models(table: PriceTable): ProviderConfig['models'] {
  return table.map(([id, input_price, output_price, context_length, capabilities = CHAT]) => ({
    id,
    input_price,
    output_price,
    context_length,
    capabilities,
  }));
}

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
      models: models(OPENAI_MODELS),
    });
  }
  if (env.ANTHROPIC_API_KEY) {
    out.push({
      id: 'anthropic',
      type: 'anthropic',
      base_url: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1',
      api_key_env: 'ANTHROPIC_API_KEY',
      models: models(ANTHROPIC_MODELS),
    });
  }
  if (env.OPENROUTER_API_KEY) {
    out.push({
      id: 'openrouter',
      type: 'openai',
      base_url: 'https://openrouter.ai/api/v1',
      api_key_env: 'OPENROUTER_API_KEY',
      models: models(OPENROUTER_MODELS),
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

/** Reads and validates a providers file; the message names the file and the bad field. */
export function readProvidersFile(path: string): ProvidersFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ProvidersConfigError(`providers file ${path}: ${(error as Error).message}`);
  }
  const parsed = ProvidersFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProvidersConfigError(`providers file ${path}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}

/**
 * Every upstream provider: the built-in ones the environment enables, then the file's (a file
 * provider with a built-in's id replaces it). A provider whose key variable is unset is refused.
 */
export function resolveProviders(env: NodeJS.ProcessEnv, file: ProvidersFile | null): ResolvedProvider[] {
  const byId = new Map<string, ProviderConfig>();
  for (const provider of [...fromEnvironment(env), ...(file?.providers ?? [])]) byId.set(provider.id, provider);
  return [...byId.values()].map((config) => {
    const apiKey = config.api_key_env ? (env[config.api_key_env] ?? null) : null;
    if (config.api_key_env && !apiKey) {
      throw new ProvidersConfigError(`provider ${config.id}: the environment variable ${config.api_key_env} is not set`);
    }
    return { config, apiKey };
  });
}

/**
 * Cache prices as multiples of the input price where a provider type publishes one rule for all
 * its models: Anthropic bills a cache read at 0.1×, a 5-minute write at 1.25× and a 1-hour write
 * at 2×. OpenAI's cached-input discount differs by model, so it must be given (else: full price).
 */
const CACHE_RULES: Partial<Record<ProviderConfig['type'], { read: number; write: number; write1h: number }>> = {
  anthropic: { read: 0.1, write: 1.25, write1h: 2 },
};

/** `input × factor`, kept to the millionth of a dollar the prices are summed in. */
const times = (price: number, factor: number) => Math.round(price * factor * 1_000_000) / 1_000_000;

/** The catalog entries of one provider's models. */
export function modelEntries(config: ProviderConfig): ModelEntry[] {
  const rule = CACHE_RULES[config.type];
  return config.models.map((model) => ({
    id: `${config.id}/${model.id}`,
    provider: config.id,
    model: model.id,
    inputPrice: model.input_price,
    outputPrice: model.output_price,
    cachedInputPrice: model.cached_input_price ?? (rule ? times(model.input_price, rule.read) : undefined),
    cacheWritePrice: model.cache_write_price ?? (rule ? times(model.input_price, rule.write) : undefined),
    cacheWrite1hPrice: model.cache_write_1h_price ?? (rule ? times(model.input_price, rule.write1h) : undefined),
    reasoningPrice: model.reasoning_price,
    contextLength: model.context_length ?? null,
    defaultMaxOutputTokens: model.max_output_tokens ?? DEFAULT_MAX_OUTPUT,
    imageTokens: model.image_tokens ?? IMAGE_TOKENS[config.type],
    capabilities: model.capabilities ?? CHAT,
  }));
}
