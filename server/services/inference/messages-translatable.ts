import { z } from 'zod';
import { MessagesBody, MessagesModel } from '../../../src/contract/schemas/messages.js';

/**
 * What the translation of a Messages request to a chat completion can carry (a non-Anthropic
 * upstream behind `/messages`): the contract accepts every Anthropic request, and a request bound
 * for translation is read again with these stricter schemas, so a field or block the chat format
 * cannot hold is a 400 that names it, never silently dropped.
 * `cache_control` is accepted and ignored everywhere it may stand: it is a prompt-caching hint
 * that changes no answer, and clients (Claude Code) send it routinely. So are the other hints
 * (`tools[].eager_input_streaming`, `thinking.display`), and the thinking blocks of earlier
 * answers, which the chat format has no place for.
 */

const CacheControl = z
  .strictObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
  .nullish()
  .describe('Prompt-caching hint: accepted and ignored');

/** `[0].type` for the path [0, 'type'], as the router names fields. */
const pathText = (path: readonly PropertyKey[]) => path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');

/**
 * A string, or a list of content blocks. A bad block is named in the message: a plain union
 * would only say "Invalid input", since the string option fails too.
 */
function stringOrBlocks<T extends z.ZodType>(blocks: T) {
  return z.union([z.string(), blocks], {
    error: (issue) => {
      const inner = issue.code === 'invalid_union' && Array.isArray(issue.input) ? issue.errors[1]?.[0] : undefined;
      if (!inner) return 'must be a string or a list of content blocks';
      return inner.path.length > 0 ? `the block at ${pathText(inner.path)}: ${inner.message}` : inner.message;
    },
  });
}

const ToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$');

export const MessagesTextBlock = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: CacheControl,
  // What a client copies back from an answer: null means no citations.
  citations: z.null().optional(),
});

const ImageSource = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('base64'),
    media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
    data: z.string().min(1),
  }),
  z.strictObject({ type: z.literal('url'), url: z.url({ protocol: /^https?$/ }) }),
]);

const ImageBlock = z.strictObject({ type: z.literal('image'), source: ImageSource, cache_control: CacheControl });

/** PDFs inline only: the chat format's `file` part takes data, not a URL or a file id. */
const DocumentBlock = z.strictObject({
  type: z.literal('document'),
  source: z.strictObject({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string().min(1) }),
  cache_control: CacheControl,
});

const ToolUseBlock = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: ToolName,
  input: z.record(z.string(), z.unknown()),
  cache_control: CacheControl,
  // An answer's tool_use blocks carry who called the tool; only a plain (client) call is ours.
  caller: z.strictObject({ type: z.literal('direct') }).optional(),
});

const ToolResultBlock = z.strictObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  // Images are accepted here so the refusal can say why (tool messages carry text only).
  content: stringOrBlocks(z.array(z.discriminatedUnion('type', [MessagesTextBlock, ImageBlock]))).optional(),
  is_error: z.boolean().optional(),
  cache_control: CacheControl,
});

/**
 * An earlier answer's reasoning, as a client sends it back. The chat format has no place for it,
 * so it is dropped; its signature is not checked (translated answers carry an empty one).
 */
const ThinkingBlock = z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string(), cache_control: CacheControl });
const RedactedThinkingBlock = z.strictObject({ type: z.literal('redacted_thinking'), data: z.string(), cache_control: CacheControl });

const UserBlock = z.discriminatedUnion('type', [MessagesTextBlock, ImageBlock, DocumentBlock, ToolResultBlock]);
const AssistantBlock = z.discriminatedUnion('type', [MessagesTextBlock, ToolUseBlock, ThinkingBlock, RedactedThinkingBlock]);

export const MessagesMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: stringOrBlocks(z.array(UserBlock).min(1)) }),
  z.strictObject({ role: z.literal('assistant'), content: stringOrBlocks(z.array(AssistantBlock)) }),
]);
export type MessagesMessage = z.output<typeof MessagesMessage>;

export const MessagesTool = z.strictObject({
  type: z.literal('custom').nullish(),
  name: ToolName,
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  strict: z.boolean().optional(),
  cache_control: CacheControl,
  // How Anthropic streams a tool's input; chat upstreams stream arguments as they come anyway.
  eager_input_streaming: z.boolean().nullish(),
});

const ParallelHint = { disable_parallel_tool_use: z.boolean().optional() };

export const MessagesToolChoice = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('auto'), ...ParallelHint }),
  z.strictObject({ type: z.literal('any'), ...ParallelHint }),
  z.strictObject({ type: z.literal('tool'), name: ToolName, ...ParallelHint }),
  z.strictObject({ type: z.literal('none') }),
]);

const System = stringOrBlocks(z.array(MessagesTextBlock)).describe('System prompt: a string or text blocks');

/** `summarized` or `omitted`: how Anthropic shows thinking; a translated answer shows what the upstream sends. */
const ThinkingDisplay = { display: z.enum(['summarized', 'omitted']).nullish() };

const MessagesThinking = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive(), ...ThinkingDisplay }),
    z.strictObject({ type: z.literal('adaptive'), ...ThinkingDisplay }),
    z.strictObject({ type: z.literal('between_tools') }),
    z.strictObject({ type: z.literal('disabled') }),
  ])
  .nullish()
  .describe("Extended thinking: the model's reasoning effort where it has one (budget_tokens under 2048 low, under 8192 medium, else high)");

const OutputConfig = z
  .strictObject({
    effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish().describe("The model's reasoning effort, where it has one (max is xhigh)"),
    format: z
      .strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
      .nullish()
      .describe('Structured output: the answer is JSON that fits the schema (chat response_format json_schema)'),
  })
  .optional();

/** What both operations read: the conversation and what the model may call. */
const Conversation = {
  messages: z.array(MessagesMessage).min(1).describe('Conversation turns (user and assistant)'),
  system: System.optional(),
  tools: z.array(MessagesTool).max(128).optional().describe('Tools the model may call'),
  tool_choice: MessagesToolChoice.optional().describe('auto, any, tool (with name) or none'),
  thinking: MessagesThinking,
  output_config: OutputConfig,
  cache_control: CacheControl,
};

/** Read as the contract reads them: the translation takes them as they are. */
const { max_tokens, stream, temperature, top_p } = MessagesBody.shape;

export const TranslatableMessagesBody = z.strictObject({
  model: MessagesModel,
  max_tokens,
  ...Conversation,
  stream,
  temperature,
  top_p,
  top_k: z.number().int().min(0).nullish().describe('Top-k sampling: passed on as top_k (vLLM, OpenRouter and Together take it)'),
  // The chat format takes at most four (Anthropic's own upstreams, relayed, take more).
  stop_sequences: z.array(z.string()).max(4, 'at most 4 stop sequences fit the chat format this model is served through').optional().describe('Up to 4 sequences that stop the answer'),
  metadata: z.strictObject({ user_id: z.string().nullish() }).optional().describe('user_id is passed on as the end user'),
  service_tier: z.enum(['auto', 'standard_only']).optional().describe('Passed on as the chat service_tier: auto, or default for standard_only'),
  // Declared so that the refusal names it: it edits the conversation on Anthropic's side.
  context_management: z.unknown().optional().describe('Refused: clearing old tool results and thinking is done by Anthropic models only'),
});
export type TranslatableMessagesBody = z.output<typeof TranslatableMessagesBody>;

export const TranslatableCountTokensBody = z.strictObject({ model: MessagesModel, ...Conversation });
export type TranslatableCountTokensBody = z.output<typeof TranslatableCountTokensBody>;

