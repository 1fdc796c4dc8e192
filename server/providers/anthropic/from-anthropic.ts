/**
 * Anthropic's answers as OpenAI chat completions, whole and streamed, as pure functions (the
 * requests go out through to-anthropic.ts).
 *
 * Text blocks are concatenated; `tool_use` blocks become `tool_calls`; other blocks (thinking,
 * server tools) are skipped. Prompt tokens count cache writes and reads too, as OpenAI's
 * `prompt_tokens` does; cache reads are its `prompt_tokens_details.cached_tokens`, and the usage
 * the gateway prices carries the cache split (reads, 5-minute and 1-hour writes).
 */
import type { ServerSentEvent } from '../../../src/contract/sse.js';
import type { ChatChunk, ChatCompletionJson, TokenUsage } from '../types.js';
import { parseUpstream, upstreamBadResponse, upstreamStreamError } from '../errors.js';
import { chatUsageOf } from '../openai/usage.js';
import { AnthropicMessage, StreamEvent, STREAM_EVENT_TYPES } from './schemas.js';
import { answerText, type StructuredAnswer } from './to-anthropic.js';
import { mergeUsage, tokenUsageOf, type AnthropicUsage } from './usage.js';
/** OpenAI's `finish_reason` for Anthropic's `stop_reason`. */
export function finishReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

const completionId = (messageId: string) => `chatcmpl-${messageId.replace(/^msg_/, '')}`;

/**
 * A finished Messages API answer (as the upstream sent it, validated here) as a chat completion.
 * `model` is the name the completion carries (`<provider>/<model>`).
 */
export function fromAnthropicMessage(
  raw: unknown,
  options: { provider: string; model: string; answer?: StructuredAnswer | null },
): { completion: ChatCompletionJson; usage: TokenUsage } {
  const message: AnthropicMessage = parseUpstream(options.provider, AnthropicMessage, raw, 'message');
  let text = '';
  let answered = false;
  const toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use' && options.answer && block.name === options.answer.name) {
      // The structured answer: its input is the message (any prose before it is not).
      text = answerText(options.answer, block.input);
      answered = true;
    } else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
    }
  }
  const usage = tokenUsageOf(message.usage);
  return {
    usage,
    completion: {
      id: completionId(message.id),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: options.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls.length > 0 && text === '' ? null : text,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: answered && toolCalls.length === 0 ? 'stop' : finishReason(message.stop_reason),
        },
      ],
      usage: chatUsageOf(usage),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Streams

/** An `event: error` in the middle of a stream: the upstream gave up after the first byte. */
export interface StreamTranslatorOptions {
  provider: string;
  /** The name the chunks carry (`<provider>/<model>`). */
  model: string;
  /** Takes this server's credentials out of an upstream's error message (`upstream.redact`). */
  redact?: (text: string) => string;
  /** The structured answer's tool, when the client asked for JSON: its input streams as content. */
  answer?: StructuredAnswer | null;
}

export interface StreamTranslator {
  /** The chat chunks for one server-sent event (often none); throws on `event: error`. */
  push(event: ServerSentEvent): ChatChunk[];
  /** Call at the end of the body: throws if the stream stopped before `message_stop`. */
  end(): void;
}

/**
 * Anthropic's stream events as OpenAI chunks: the role on the first chunk, text deltas as
 * content, each `tool_use` block as one tool call (its OpenAI index counts tool_use blocks only)
 * whose arguments arrive as `input_json_delta` fragments, and `message_delta` as the last chunk,
 * with the finish reason and the usage (input tokens from `message_start`, output tokens from
 * `message_delta`).
 */
export function createStreamTranslator(options: StreamTranslatorOptions): StreamTranslator {
  let id = 'chatcmpl-pending';
  const created = Math.floor(Date.now() / 1000);
  /** The usage so far: the input side from message_start, the output (and newer versions' input again) from message_delta. */
  let usage: AnthropicUsage = {};
  let finished = false;
  /** Anthropic block index → the tool call's OpenAI index, its arguments so far, and the input of its start event. */
  const tools = new Map<number, { index: number; sent: number; input: Record<string, unknown> | undefined }>();
  /** The answer tool's block: its input streams as content (a wrapped one is sent whole at its end). */
  let answerBlock: { index: number; json: string; sent: boolean } | null = null;

  const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: string | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: options.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const toolDelta = (index: number, fn: { name?: string; arguments: string }, head?: { id: string }): ChatChunk =>
    chunk({ tool_calls: [{ index, ...(head ? { id: head.id, type: 'function' as const } : {}), function: fn }] });

  function translate(event: StreamEvent): ChatChunk[] {
    switch (event.type) {
      case 'message_start':
        id = completionId(event.message.id);
        usage = mergeUsage(usage, event.message.usage);
        return [chunk({ role: 'assistant', content: '' })];
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') return block.text ? [chunk({ content: block.text })] : [];
        if (block.type !== 'tool_use') return [];
        if (options.answer && block.name === options.answer.name) {
          answerBlock = { index: event.index, json: '', sent: false };
          return [];
        }
        const index = tools.size;
        tools.set(event.index, { index, sent: 0, input: block.input });
        return [toolDelta(index, { name: block.name, arguments: '' }, { id: block.id })];
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') return delta.text ? [chunk({ content: delta.text })] : [];
        if (answerBlock?.index === event.index && delta.type === 'input_json_delta') {
          answerBlock.json += delta.partial_json ?? '';
          if (options.answer?.wrapped || !delta.partial_json) return [];
          answerBlock.sent = true;
          return [chunk({ content: delta.partial_json })];
        }
        const tool = tools.get(event.index);
        if (delta.type !== 'input_json_delta' || !tool || !delta.partial_json) return [];
        tool.sent += delta.partial_json.length;
        return [toolDelta(tool.index, { arguments: delta.partial_json })];
      }
      case 'content_block_stop': {
        if (answerBlock?.index === event.index && options.answer) {
          if (answerBlock.sent) return [];
          let input: unknown = {};
          try {
            input = answerBlock.json ? JSON.parse(answerBlock.json) : {};
          } catch {
            throw upstreamBadResponse(options.provider, 'a structured answer that is not JSON');
          }
          return [chunk({ content: answerText(options.answer, input) })];
        }
        // A tool without arguments may stream none at all: its arguments are then its start input.
        const tool = tools.get(event.index);
        if (!tool || tool.sent > 0) return [];
        tool.sent = 1;
        return [toolDelta(tool.index, { arguments: JSON.stringify(tool.input ?? {}) })];
      }
      case 'message_delta': {
        // message_start's output count is a first guess: the delta's is the real one (0 if it has none).
        usage = mergeUsage({ ...usage, output_tokens: 0 }, event.usage ?? {});
        const finish = answerBlock && tools.size === 0 ? 'stop' : finishReason(event.delta.stop_reason);
        return [{ ...chunk({}, finish), usage: chatUsageOf(tokenUsageOf(usage)) }];
      }
      case 'message_stop':
        finished = true;
        return [];
      case 'ping':
        return [];
      case 'error':
        throw upstreamStreamError(options.provider, (options.redact ?? String)(event.error.message ?? event.error.type ?? 'no message'));
    }
  }

  return {
    push(sse) {
      let data: unknown;
      try {
        data = JSON.parse(sse.data);
      } catch {
        throw upstreamBadResponse(options.provider, 'a stream event is not JSON');
      }
      const type = (data as { type?: unknown } | null)?.type ?? sse.event;
      if (typeof type !== 'string' || !STREAM_EVENT_TYPES.has(type)) return [];
      return translate(parseUpstream(options.provider, StreamEvent, { ...(data as object), type }, `stream event ${type}`));
    },
    end() {
      if (!finished) throw upstreamBadResponse(options.provider, 'the stream ended before message_stop');
    },
  };
}
