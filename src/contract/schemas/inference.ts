import { z } from 'zod';
import { Credits, Timestamp, TimestampInput } from './common.js';

/** `<provider>/<model>`; the model part may itself contain `/`. Exported for the server's quick check of a plain chat body. */
export const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9_-]*\/\S+$/;

export const ModelId = z
  .string()
  .regex(MODEL_ID_PATTERN, 'must be <provider>/<model>, e.g. local/echo')
  .describe('Model identifier, <provider>/<model>');

/** OpenRouter's `models`: fallbacks tried in order after `model` when it cannot answer (down, overloaded, rate-limited). */
export const FallbackModels = z
  .array(ModelId)
  .min(1)
  .max(8)
  .optional()
  .describe('Fallback models (or route/<name>), tried in order after model when it fails before answering');

const ToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$');

export const FunctionTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: ToolName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

/** A custom (free-form input) tool, as OpenAI's newer models take: passed on to upstreams that know it. */
export const CustomTool = z.looseObject({
  type: z.literal('custom'),
  custom: z.looseObject({ name: ToolName, description: z.string().optional() }),
});

export const ChatToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: ToolName }) }),
  z.looseObject({ type: z.enum(['custom', 'allowed_tools']) }),
]);

export const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const AudioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});
const FilePart = z.looseObject({ type: z.literal('file'), file: z.looseObject({}) });
const ContentPart = z.discriminatedUnion('type', [TextPart, ImagePart, AudioPart, FilePart]);
const TextContent = z.union([z.string(), z.array(TextPart)]);

export const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const ChatMessage = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: TextContent, name: z.string().optional() }),
  z.looseObject({ role: z.literal('developer'), content: TextContent, name: z.string().optional() }),
  z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(ContentPart)]),
    name: z.string().optional(),
  }),
  z.looseObject({
    role: z.literal('assistant'),
    content: TextContent.nullish(),
    tool_calls: z.array(ToolCall).optional(),
    refusal: z.string().nullish(),
    name: z.string().optional(),
  }),
  z.looseObject({ role: z.literal('tool'), content: TextContent, tool_call_id: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

const Temperature = z.number().min(0).max(2).describe('Randomness, 0.0 to 2.0');

/**
 * A chat completion request. The fields this server knows are validated; any other field goes on
 * unchanged to OpenAI-type upstreams (the upstream is the judge of what is new), and is refused
 * by name by providers that translate (Anthropic).
 */
export const ChatCompletionBody = z.looseObject({
  model: ModelId,
  models: FallbackModels,
  messages: z.array(ChatMessage).min(1).describe('Conversation history'),
  stream: z.boolean().optional().describe('Stream the answer as server-sent events'),
  stream_options: z.looseObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).nullish(),
  tools: z.array(z.discriminatedUnion('type', [FunctionTool, CustomTool])).max(128).optional().describe('Tools the model may call'),
  tool_choice: ChatToolChoice.optional().describe('Tool selection control'),
  parallel_tool_calls: z.boolean().optional(),
  image_model: z.string().min(1).optional().describe('Overrides the model argument of image tool calls'),
  temperature: Temperature.nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  // Not OpenAI's: vLLM, OpenRouter and Together take it (and Anthropic models, translated); OpenAI itself refuses it.
  top_k: z.number().int().min(0).nullish().describe('Top-k sampling, for upstreams that have it (vLLM, OpenRouter, Together, Anthropic)'),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  n: z.number().int().min(1).max(128).nullish().describe('Choices to generate (more than 1 where the provider supports it)'),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  seed: z.number().int().nullish(),
  user: z.string().optional(),
  response_format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).optional(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
  service_tier: z.string().nullish(),
  prompt_cache_key: z.string().max(1000).nullish(),
  safety_identifier: z.string().max(1000).nullish(),
  verbosity: z.enum(['low', 'medium', 'high']).nullish(),
  modalities: z.array(z.string()).nullish(),
  audio: z.looseObject({}).nullish(),
  prediction: z.looseObject({ type: z.string() }).nullish(),
  web_search_options: z.looseObject({}).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
});

const TokenCount = z.number().int().nonnegative();

/** What a request was charged, in credits (0 for test keys): OpenRouter's `usage.cost`, on every inference answer. */
export const ChargedCost = z.number().nonnegative().describe('Credits charged for this request (0 for test keys)');

/** What the prompt and the completion counts are made of, as OpenAI reports it (parts of the totals, priced apart). */
export const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost: ChargedCost.optional(),
  prompt_tokens_details: z
    .looseObject({
      cached_tokens: TokenCount.optional(),
      audio_tokens: TokenCount.optional(),
      cache_write_tokens: TokenCount.optional(),
      cache_write_1h_tokens: TokenCount.optional(),
    })
    .optional()
    .describe(
      'cached_tokens: prompt tokens read from the prompt cache (billed at the cached-input price); ' +
        "cache_write_tokens: prompt tokens written to it (OpenRouter's name; an Anthropic model's, billed at the cache-write price), " +
        'of which cache_write_1h_tokens for an hour',
    ),
  completion_tokens_details: z
    .looseObject({
      reasoning_tokens: TokenCount.optional(),
      audio_tokens: TokenCount.optional(),
      accepted_prediction_tokens: TokenCount.optional(),
      rejected_prediction_tokens: TokenCount.optional(),
    })
    .optional()
    .describe('reasoning_tokens: completion tokens spent reasoning (billed at the reasoning price)'),
});

export const ChatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: z.looseObject({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        tool_calls: z.array(ToolCall).optional(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: Usage.optional(),
});

const ResponsesTool = z.looseObject({ type: z.string(), name: z.string().optional() });

/** A Responses request: the known fields validated; others go on to native upstreams, and translated ones refuse them by name. */
export const ResponseBody = z.looseObject({
  model: ModelId,
  models: FallbackModels,
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional().describe('Text or input items'),
  messages: z.array(ChatMessage).optional().describe('Chat messages, accepted in place of input'),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().positive().nullish().describe('Maximum number of tokens to generate'),
  temperature: Temperature.nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().optional(),
  background: z.boolean().optional().describe('Process in the background; read the result later'),
  reasoning: z
    .strictObject({
      effort: z.enum(['minimal', 'low', 'medium', 'high']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish()
    .describe('Reasoning settings'),
  thinking: z
    .strictObject({ type: z.enum(['enabled', 'disabled']), budget_tokens: z.number().int().positive().optional() })
    .nullish()
    .describe('Thinking settings'),
  tools: z.array(ResponsesTool).max(128).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).optional(),
  parallel_tool_calls: z.boolean().nullish(),
  image_model: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  user: z.string().optional(),
  text: z.looseObject({}).optional(),
  previous_response_id: z.string().nullish(),
  include: z.array(z.string()).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  max_tool_calls: z.number().int().positive().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  conversation: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
  prompt: z.looseObject({ id: z.string() }).nullish(),
  prompt_cache_key: z.string().max(1000).nullish(),
  safety_identifier: z.string().max(1000).nullish(),
  service_tier: z.string().nullish(),
});

export const ResponseObject = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete']),
  model: z.string(),
  output: z.array(z.looseObject({ type: z.string() })),
  usage: z
    .looseObject({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() })
    .nullable(),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
});

export const EmbeddingsBody = z.strictObject({
  model: ModelId,
  input: z
    .union([
      z.string().min(1),
      z.array(z.string().min(1)).min(1).max(2048),
      z.array(z.number().int().min(0)).min(1),
      z.array(z.array(z.number().int().min(0)).min(1)).min(1).max(2048),
    ])
    .describe('A string, a list of strings, a list of token ids, or a list of lists of token ids'),
  dimensions: z.number().int().positive().max(65_536).optional().describe('Dimensions of the output vectors'),
  encoding_format: z.enum(['float', 'base64']).default('float').describe('float (default) or base64'),
  user: z.string().optional(),
});

export const EmbeddingList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int(), cost: ChargedCost.optional() }),
});

/** Where a model's prices came from: svc's own (offline and self-hosted models), the maintained catalog, the providers file, or the file over the catalog. */
export const PriceSource = z.enum(['built_in', 'catalog', 'providers_file', 'providers_file_and_catalog']);

/** What each kind of token costs, USD per million, with nothing left to default. */
const TokenPricing = z.object({
  input_per_million_usd: z.number(),
  output_per_million_usd: z.number(),
  cached_input_per_million_usd: z.number().describe('Input read from the prompt cache'),
  cache_write_per_million_usd: z.number().describe('Input written to the prompt cache for 5 minutes'),
  cache_write_1h_per_million_usd: z.number().describe('Input written to the prompt cache for an hour'),
  reasoning_per_million_usd: z.number().describe('Reasoning (thinking) output'),
});

const InputTierPricing = TokenPricing.extend({ above_input_tokens: z.number().int().nonnegative() }).describe(
  'The prices of a request whose input exceeds above_input_tokens: the whole request, cache and output included',
);

const ServiceTierPricing = TokenPricing.extend({ tiers: z.array(InputTierPricing) });

export const ModelPricing = TokenPricing.extend({
  tiers: z.array(InputTierPricing).describe('Long-context prices, from the smallest input size up'),
  service_tiers: z
    .object({ flex: ServiceTierPricing.optional(), priority: ServiceTierPricing.optional() })
    .describe('The prices of a request served at service_tier flex or priority (the others are billed at the standard prices)'),
  web_search_per_call_usd: z.number().nullable().describe('Each web search the upstream runs'),
  source: PriceSource,
  catalog: z.object({ provider: z.string(), model: z.string() }).nullable().describe("The catalog's provider and model that filled prices, if any"),
});

export const Model = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  provider: z.string(),
  context_length: z.number().int().nullable(),
  pricing: ModelPricing,
  capabilities: z.array(z.enum(['chat', 'embeddings', 'responses', 'tools'])),
  route: z
    .object({
      strategy: z.enum(['fallback', 'weighted', 'latency']),
      targets: z.array(z.object({ model: z.string(), weight: z.number() })).describe('The models it stands for, flattened, as the providers file orders them'),
    })
    .optional()
    .describe('For a route (route/<name>): how it picks its targets; its pricing is its dearest target\'s, its context_length its largest'),
});

export const ModelsQuery = z.strictObject({
  provider: z.string().min(1).optional().describe('Only models of this provider'),
  page_size: z.coerce.number().int().min(1).max(200).optional().describe('Models per page (1 to 200); without it, every model, as OpenAI answers'),
  page_token: z.string().min(1).optional().describe('Token for the next page, from next_page_token'),
  // Anthropic's paging, for a request with `anthropic-version` (its SDKs and Claude Code).
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Anthropic clients: models per page (1 to 1000, default 20)'),
  after_id: z.string().min(1).optional().describe('Anthropic clients: the page after this model id'),
  before_id: z.string().min(1).optional().describe('Anthropic clients: the page before this model id'),
});

export const OpenAIModelList = z.object({
  object: z.literal('list'),
  data: z.array(Model),
  next_page_token: z.string().nullable(),
});

/** A model as Anthropic's Models API describes it (what a request with `anthropic-version` gets). */
export const AnthropicModel = z.object({
  type: z.literal('model'),
  id: z.string(),
  display_name: z.string(),
  created_at: z.string(),
});

export const AnthropicModelList = z.object({
  data: z.array(AnthropicModel),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});

/** OpenAI's list, or Anthropic's for a request that carries `anthropic-version`. */
export const ModelList = z.union([OpenAIModelList, AnthropicModelList]);
export const ModelAnswer = z.union([Model, AnthropicModel]);

export const ToolList = z.object({ object: z.literal('list'), data: z.array(FunctionTool) });

/** The specification's periods: aliases in days and shorter durations. */
export const USAGE_PERIODS = ['10m', '30m', '1h', '6h', '12h', '24h', '72h', '7d', '30d', '90d', '180d', '365d'] as const;
export const UsagePeriod = z.enum(USAGE_PERIODS).describe('Window ending now (default 30d)');

export const UsageModelsQuery = z.strictObject({
  start: TimestampInput.optional().describe('Start (RFC 3339); requires end; takes precedence over period'),
  end: TimestampInput.optional().describe('End (RFC 3339); requires start'),
  period: UsagePeriod.optional(),
});

/**
 * What a usage report sums, over the caller's mode only (a test key sees test usage, a live key
 * live usage): requests, tokens with the cached and reasoning parts of them, and the credits charged.
 */
const UsageTotals = {
  requests: z.number().int(),
  refused_requests: z
    .number()
    .int()
    .describe('Of the requests, those refused before reaching the model (402 credits, 403, 429), counted in requests too'),
  input_tokens: z.number().int().describe('Input tokens, cached ones included'),
  cached_input_tokens: z.number().int().describe('Of the input tokens, those read from the prompt cache (billed at the cached-input price)'),
  cache_write_tokens: z.number().int().describe('Of the input tokens, those written to the prompt cache (billed at the cache-write price)'),
  output_tokens: z.number().int().describe('Output tokens, reasoning ones included'),
  reasoning_tokens: z.number().int().describe('Of the output tokens, those spent on reasoning'),
  credits: Credits.describe('Credits charged (0 for test usage)'),
};

export const UsageByModel = z.object({
  data: z.array(z.object({ model: z.string(), ...UsageTotals })),
  start: Timestamp,
  end: Timestamp,
});

export const AppUsageQuery = z.strictObject({
  start_time: TimestampInput.optional().describe('Start (RFC 3339; default 30 days ago)'),
  end_time: TimestampInput.optional().describe('End (RFC 3339; default now)'),
  granularity: z.enum(['day', 'hour']).default('day').describe('day (default) or hour'),
});

export const AppUsage = z.object({
  app_uuid: z.uuid(),
  granularity: z.enum(['day', 'hour']),
  start_time: Timestamp,
  end_time: Timestamp,
  data: z.array(z.object({ start: Timestamp, ...UsageTotals })),
  totals: z.object(UsageTotals),
  models: UsageByModel.shape.data.describe('The window’s totals per model, most credits first'),
});

export const AppUserUsageRow = z.object({
  address: z.string().nullable().describe('The user; null for requests made with the app’s API keys'),
  ...UsageTotals,
});
