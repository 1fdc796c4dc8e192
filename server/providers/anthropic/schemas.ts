import { z } from 'zod';
import { AnthropicUsage } from './usage.js';

/**
 * What we rely on in Anthropic's Messages API answers and stream events. Everything else the
 * upstream sends is let through (loose objects) and ignored; block, delta and event types we do
 * not know (thinking, server tools, citations, …) are accepted and skipped, as Anthropic asks
 * clients to do. A shape we cannot use is a 502 (`upstreamBadResponse`).
 */

/**
 * Any `type` but the ones the schemas next to it describe (so a malformed known block is not
 * waved through), read as `{type: 'skipped'}`.
 */
const skipped = (...known: string[]) =>
  z.looseObject({ type: z.string().refine((type) => !known.includes(type)) }).transform(() => ({ type: 'skipped' as const }));

export const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
const ContentBlock = z.union([TextBlock, ToolUseBlock, skipped('text', 'tool_use')]);

/** A finished message's usage: its two counts are always there (the cache's may be). */
const MessageUsage = AnthropicUsage.extend({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() });

export const AnthropicMessage = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.array(ContentBlock),
  stop_reason: z.string().nullable(),
  stop_sequence: z.string().nullish(),
  usage: MessageUsage,
});
export type AnthropicMessage = z.infer<typeof AnthropicMessage>;

const TextDelta = z.looseObject({ type: z.literal('text_delta'), text: z.string() });
const InputJsonDelta = z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() });

export const StreamEvent = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message_start'),
    message: z.looseObject({ id: z.string(), usage: AnthropicUsage }),
  }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number().int().nonnegative(),
    content_block: z.union([TextBlock, ToolUseBlock.extend({ input: ToolUseBlock.shape.input.optional() }), skipped('text', 'tool_use')]),
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number().int().nonnegative(),
    delta: z.union([TextDelta, InputJsonDelta, skipped('text_delta', 'input_json_delta')]),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number().int().nonnegative() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: AnthropicUsage.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }),
  }),
]);
export type StreamEvent = z.infer<typeof StreamEvent>;

/** The stream event types we act on; any other is skipped (Anthropic may add new ones). */
export const STREAM_EVENT_TYPES: ReadonlySet<string> = new Set(StreamEvent.options.map((option) => option.shape.type.value));
