import type { z } from 'zod';
import type { TokenCounts } from '../store/types/usage.js';
import type { ChatCompletion, ChatCompletionBody, PriceSource as PriceSourceSchema, Usage } from '../../src/contract/schemas/inference.js';
import type { CancelSignal } from '../cancellation.js';

/**
 * Tokens as the upstream counted them, in OpenAI's convention (`TokenCounts`). Adapters of
 * providers that count otherwise (Anthropic's `input_tokens` exclude the cache) convert, so
 * nothing is billed twice or missed.
 */
export interface TokenUsage extends TokenCounts {
  /**
   * Web searches the upstream ran for the request (Anthropic's `server_tool_use.web_search_requests`,
   * the Responses API's `web_search_call` items), each priced at the model's `webSearchPrice`.
   */
  webSearchCalls?: number;
  /**
   * The service tier that served the request as the upstream reports it (OpenAI's `service_tier`
   * in the answer); it is what is billed. Unset: the tier the request asked for.
   */
  serviceTier?: string;
}

export type ChatBody = z.output<typeof ChatCompletionBody>;
export type ChatCompletionJson = z.input<typeof ChatCompletion>;
/** OpenAI's usage object, details (cached, reasoning) included where the upstream reports them. */
export type ChatUsage = z.input<typeof Usage>;

/** One OpenAI `chat.completion.chunk`, the common currency of every streaming adapter. */
export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      /** Reasoning text, where an OpenAI-compatible host streams it: DeepSeek and vLLM as `reasoning_content`, OpenRouter as `reasoning`. */
      reasoning_content?: string;
      reasoning?: string;
      tool_calls?: {
        index: number;
        id?: string;
        type?: 'function';
        function?: { name?: string; arguments?: string };
      }[];
    };
    finish_reason: string | null;
    /** The stop that ended the answer, where the host says: vLLM's `stop_reason` and SGLang's `matched_stop` (a stop string, or a token id). */
    stop_reason?: string | number;
    matched_stop?: string | number;
  }[];
  usage?: ChatUsage | null;
  /** The service tier that served the request, as OpenAI says in each chunk (what is billed). */
  service_tier?: string | null;
}

export interface ChatCall {
  /** The model at the provider (the part after `<provider>/`). */
  model: string;
  body: ChatBody;
  /**
   * The output budget: the request's `max_completion_tokens`/`max_tokens`, else the model's
   * default. The gateway holds credits for exactly this many; providers that need a limit
   * (Anthropic) send it.
   */
  maxOutputTokens: number;
  signal: CancelSignal;
}

export interface EmbeddingCall {
  model: string;
  /** Each input as text or as token ids. */
  inputs: (string | number[])[];
  dimensions?: number;
  signal: CancelSignal;
}

export interface EmbeddingResult {
  vectors: number[][];
  inputTokens: number;
}

/** A Responses API request passed through to an upstream that has the API itself. */
export interface ResponsesCall {
  model: string;
  /**
   * The client's request (validated) in the upstream's terms: the gateway has removed its own
   * fields (`image_model`, `messages`, `thinking`); the adapter sets `model` and `stream`.
   */
  body: Record<string, unknown>;
  signal: CancelSignal;
}

/** One typed event of a streamed response (`response.created`, `response.output_text.delta`, …). */
export interface ResponseStreamEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
  /** `data` as the upstream wrote it, while nothing of it has changed: passed on as it is, not encoded again. */
  raw?: string;
}

/**
 * One chunk of an OpenAI-type stream relayed as the upstream wrote it (a chat completion on an
 * OpenAI-type upstream): its JSON text, and what metering reads of it.
 */
export interface RelayedChatChunk {
  /** The chunk's JSON text as the upstream sent it. */
  data: string;
  /** The chunk parsed (only what the relay reads of it is checked); null for a plain chunk read from its text. */
  json: Record<string, unknown> | null;
  /** It has choices (a chunk with neither choices nor usage is not passed on). */
  hasChoices: boolean;
  /** Characters of output it writes (text, reasoning, tool arguments): the first token, and the estimate of a stream cut short. */
  written: number;
  /** Its usage, evened out (a missing total summed), where it has one. */
  usage: ChatUsage | null;
  /** The service tier it says served the request. */
  serviceTier: string | null;
}

/** The chunks of one piece of a relayed stream's body, which go on together. */
export interface RelayedChatBatch {
  chunks: RelayedChatChunk[];
  /** The upstream's [DONE] came with them: the stream ends here (its settlement can go out with them). */
  ended: boolean;
}

/**
 * A chat completion relayed as the upstream answered it (its shape checked in full only under
 * test), with its usage (the upstream's, or estimated) set in it and read.
 */
export interface RelayedCompletion {
  answer: ChatCompletionJson & { usage: ChatUsage };
  usage: TokenUsage;
}

/** The upstream's own Responses API; the gateway translates to chat completions without it. */
export interface NativeResponses {
  /** The finished (or, with `background`, queued) response object. */
  create(call: ResponsesCall): Promise<Record<string, unknown>>;
  stream(call: ResponsesCall): AsyncIterable<ResponseStreamEvent>;
}

/**
 * A Messages API request relayed to an upstream that speaks it (Anthropic): the client's body as
 * it was sent but for `model`, and the client's protocol headers.
 */
export interface MessagesCall {
  model: string;
  body: Record<string, unknown>;
  /** `anthropic-version` and `anthropic-beta` as the client sent them (the adapter's default version otherwise). */
  headers: { version?: string; beta?: string };
  signal: CancelSignal;
}

/** One event of a relayed Messages stream: its name and its JSON text as the upstream sent it. */
export interface RelayedEvent {
  event: string;
  data: string;
}

/** The upstream's own Messages API, relayed rather than translated. */
export interface NativeMessages {
  /** The answer as the upstream sent it, with its usage read. */
  create(call: MessagesCall): Promise<{ answer: Record<string, unknown>; usage: TokenUsage }>;
  /**
   * The events as they arrive, those of one piece of the upstream's body together; the caller
   * reads usage from `message_start` and `message_delta`.
   */
  stream(call: MessagesCall): AsyncIterable<RelayedEvent[]>;
  /** The upstream's own count of the request's input tokens. */
  countTokens(call: MessagesCall): Promise<number>;
}

/** What a provider can do, in OpenAI's shapes; adapters translate everything else. */
export interface ProviderAdapter {
  chat(call: ChatCall): Promise<{ completion: ChatCompletionJson; usage: TokenUsage }>;
  /** Chunks as they arrive; the last one carries `usage` when the upstream reports it. */
  chatStream(call: ChatCall): AsyncIterable<ChatChunk>;
  /** An upstream that speaks chat completions itself: the answer as it sent it, parsed only where metering reads it. */
  relayChat?(call: ChatCall): Promise<RelayedCompletion>;
  /** The chunks in batches: those of one piece of the body together. */
  relayChatStream?(call: ChatCall): AsyncIterable<RelayedChatBatch>;
  embeddings?(call: EmbeddingCall): Promise<EmbeddingResult>;
  responses?: NativeResponses;
  messages?: NativeMessages;
  /** Releases connection pools at shutdown. */
  close?(): Promise<void>;
}

export type Capability = 'chat' | 'embeddings' | 'responses' | 'tools';

/** The price of each kind of token, USD per million; a tier or a service tier gives only what differs. */
export interface TokenPrices {
  inputPrice?: number;
  outputPrice?: number;
  /** Input read from the prompt cache (default: the input price). */
  cachedInputPrice?: number;
  /** Input written to the cache for 5 minutes, and for an hour (default: the input price). */
  cacheWritePrice?: number;
  cacheWrite1hPrice?: number;
  /** Reasoning output (default: the output price). */
  reasoningPrice?: number;
}

/**
 * Prices for a request whose input exceeds `aboveInputTokens`, field by field over the others.
 * They apply to the whole request, as Anthropic, Google and OpenAI bill long context.
 */
export interface PriceTier extends TokenPrices {
  aboveInputTokens: number;
}

/** The service tiers priced apart from the standard one (OpenAI's `service_tier`). */
export type ServiceTierName = 'flex' | 'priority';

/** A service tier's prices over the standard ones; its own input tiers, when given, replace the standard ones. */
export interface ServiceTierPrices extends TokenPrices {
  tiers?: PriceTier[];
}

/** How a model is priced: per kind of token, by input size, by service tier, and per call of a server tool. */
export interface PriceModel extends TokenPrices {
  /** In ascending `aboveInputTokens`. */
  tiers?: PriceTier[];
  serviceTiers?: Partial<Record<ServiceTierName, ServiceTierPrices>>;
  /** USD per web search the upstream runs for a request. */
  webSearchPrice?: number;
}

/** Where a model's prices came from (the catalog is @pydantic/genai-prices). */
export type PriceSource = z.infer<typeof PriceSourceSchema>;

export interface PriceOrigin {
  source: PriceSource;
  /** The catalog's provider and model that filled prices, when it did. */
  catalog?: { provider: string; model: string };
}

export interface ModelEntry extends PriceModel {
  /** `<provider>/<model>`. */
  id: string;
  provider: string;
  model: string;
  /** USD per million tokens. */
  inputPrice: number;
  outputPrice: number;
  /** Unset: `built_in`. */
  priceOrigin?: PriceOrigin;
  contextLength: number | null;
  /** Output tokens held for a request that does not set `max_tokens`. */
  defaultMaxOutputTokens: number;
  /** The most one input image can cost, in input tokens (unset: the largest any provider charges). */
  imageTokens?: number;
  capabilities: Capability[];
}
