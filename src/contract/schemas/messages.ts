import { z } from 'zod';

/**
 * The Anthropic Messages API as a front door (`POST /messages`, `POST /messages/count_tokens`).
 * To an Anthropic upstream the request is relayed as it was sent; to any other it is translated
 * to a chat completion, and the server reads it again with the stricter schemas of what the
 * translation can carry (server/services/inference/messages-translatable.ts).
 */

/**
 * `<provider>/<model>`, or an Anthropic model name without a provider (`claude-sonnet-5`),
 * read as `anthropic/<name>`, so Anthropic clients work with their usual model names.
 */
export const MessagesModel = z
  .string()
  .regex(
    /^(?:[a-z0-9][a-z0-9_-]*\/\S+|[^\s/]+)$/,
    'must be <provider>/<model>, or an Anthropic model name such as claude-sonnet-5 (read as anthropic/claude-sonnet-5)',
  )
  .describe('Model: <provider>/<model>, or a bare Anthropic model name (read as anthropic/<name>)');

/** A content block of any type: the upstream (or the translation) judges the rest. */
const Block = z.looseObject({ type: z.string().describe('text, image, document, tool_use, tool_result, thinking, redacted_thinking, server tool blocks, …') });
const Content = z.union([z.string(), z.array(Block)]);

const Message = z.looseObject({ role: z.enum(['user', 'assistant']), content: Content });

/**
 * What both operations read: the conversation and what the model may call. Typed as far as the
 * gateway reads it; every other field (`cache_control`, `context_management`, `output_config`,
 * `service_tier`, `container`, `mcp_servers`, whatever Anthropic adds next) passes to an
 * Anthropic upstream as it was sent. No transform or default here: the relayed body is the
 * client's.
 */
const Conversation = {
  messages: z.array(Message).min(1).describe('Conversation turns (user and assistant)'),
  system: Content.optional().describe('System prompt: a string or text blocks'),
  tools: z.array(z.looseObject({ name: z.string() })).optional().describe('Tools the model may call (client tools and server tools)'),
  tool_choice: z.looseObject({ type: z.string() }).optional().describe('auto, any, tool (with name) or none'),
  thinking: z
    .looseObject({ type: z.string() })
    .nullish()
    .describe('Extended thinking: {"type":"enabled","budget_tokens":N}; mapped to reasoning effort on other providers'),
};

export const MessagesBody = z.looseObject({
  model: MessagesModel,
  max_tokens: z.number().int().positive().describe('Maximum number of tokens to generate (thinking included)'),
  ...Conversation,
  stream: z.boolean().optional().describe('Stream the answer as Anthropic server-sent events'),
  temperature: z.number().min(0).max(1).nullish().describe('Randomness, 0.0 to 1.0'),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.number().int().min(0).nullish(),
  stop_sequences: z.array(z.string()).optional().describe('Sequences that stop the answer'),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional().describe('user_id is passed on as the end user'),
});
export type MessagesBody = z.output<typeof MessagesBody>;

export const CountTokensBody = z.looseObject({ model: MessagesModel, ...Conversation });
export type CountTokensBody = z.output<typeof CountTokensBody>;

/**
 * `?beta=true`: what Anthropic's SDKs (before 1.0) and Claude Code add to beta calls. It selects
 * nothing here; beta features arrive as fields and are judged as such.
 */
export const MessagesQuery = z.strictObject({
  beta: z.enum(['true', 'false']).optional().describe('Sent by Anthropic beta clients; ignored'),
});

/** The stop reasons an answer may give; Anthropic adds more (`pause_turn`, `model_context_window_exceeded`), relayed as they come. */
export const MessagesStopReason = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', 'pause_turn']);

export const MessageObject = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  // text, tool_use, thinking (with its signature), redacted_thinking, server tool blocks, …
  content: z.array(Block),
  stop_reason: z.string().nullable(),
  stop_sequence: z.string().nullable(),
  usage: z.looseObject({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_creation_input_tokens: z.number().int().nullish(),
    cache_read_input_tokens: z.number().int().nullish(),
  }),
});
export type MessageObject = z.output<typeof MessageObject>;

export const TokenCount = z.object({
  input_tokens: z.number().int().describe('The input tokens: the upstream’s own count where it has one, else the bound credits are held for'),
});
