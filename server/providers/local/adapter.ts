import { randomBytes } from 'node:crypto';
import type { ChatCall, ChatChunk, ChatCompletionJson, ModelEntry, ProviderAdapter } from '../types.js';
import { invalidRequest } from '../../errors.js';
import { contentText, ECHO_BOUNDS, estimateChatInputTokens, estimateTokens } from '../tokens.js';
import { structuredEcho } from './structured.js';
import { echoTurn, streamPieces, type EchoTurn } from './echo.js';
import { embedText, LOCAL_EMBED_DIMENSIONS, tokensToText } from './embed.js';
import { abortReason, type CancelSignal } from '../../cancellation.js';

/** The offline provider: always present, free, deterministic. */

export const localModels: ModelEntry[] = [
  {
    id: 'local/echo',
    provider: 'local',
    model: 'echo',
    inputPrice: 0,
    outputPrice: 0,
    contextLength: 131_072,
    defaultMaxOutputTokens: 4096,
    capabilities: ['chat', 'tools', 'responses'],
  },
  {
    id: 'local/embed',
    provider: 'local',
    model: 'embed',
    inputPrice: 0,
    outputPrice: 0,
    contextLength: 8192,
    defaultMaxOutputTokens: 0,
    capabilities: ['embeddings'],
  },
];

function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

function aborted(signal: CancelSignal): never {
  throw abortReason(signal);
}

/**
 * A tool the request forces (`tool_choice` naming a function, or `required`) is called, as real
 * models do, with arguments that fit its parameters and carry what the user said — unless the
 * conversation has just had its result back.
 */
function forcedToolTurn(call: ChatCall): EchoTurn | null {
  const choice = call.body.tool_choice;
  const last = call.body.messages.at(-1);
  if (!choice || choice === 'none' || choice === 'auto' || last?.role === 'tool') return null;
  const functions = (call.body.tools ?? []).flatMap((t) => (t.type === 'function' ? [t.function as { name: string; parameters?: unknown }] : []));
  const name = typeof choice === 'object' && 'function' in choice ? (choice.function as { name: string }).name : functions[0]?.name;
  const tool = functions.find((fn) => fn.name === name);
  if (!tool) return null;
  const said = contentText(call.body.messages.findLast((m) => m.role === 'user')?.content);
  const args = structuredEcho({ type: 'json_schema', json_schema: { schema: tool.parameters ?? { type: 'object' } } }, said) ?? '{}';
  return { kind: 'tool_call', id: `call_${randomBytes(8).toString('hex')}`, name: tool.name, arguments: args };
}

export function createLocalAdapter(): ProviderAdapter {
  const offered = (call: ChatCall) =>
    call.body.tool_choice === 'none' ? [] : (call.body.tools ?? []).flatMap((t) => (t.type === 'function' ? [(t.function as { name: string }).name] : []));

  return {
    async chat(call) {
      if (call.signal.aborted) aborted(call.signal);
      const turn = forcedToolTurn(call) ?? echoTurn(call.body.messages, offered(call));
      // The echo model reads an image as a low-detail one (85 tokens), whatever its size.
      const input = estimateChatInputTokens(call.body, ECHO_BOUNDS);
      const answer = (message: ChatCompletionJson['choices'][number]['message'], finishReason: string, output: number) => ({
        usage: { inputTokens: input, outputTokens: output },
        completion: {
          id: completionId(),
          object: 'chat.completion' as const,
          created: Math.floor(Date.now() / 1000),
          model: `local/${call.model}`,
          choices: [{ index: 0, message, finish_reason: finishReason }],
          usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
        },
      });
      if (call.body.n != null && call.body.n > 1) {
        throw invalidRequest('local/echo answers one choice: n must be 1.', 'n', 'unsupported_parameter');
      }
      if (turn.kind === 'tool_call') {
        const toolCall = { id: turn.id, type: 'function' as const, function: { name: turn.name, arguments: turn.arguments } };
        return answer({ role: 'assistant', content: null, tool_calls: [toolCall] }, 'tool_calls', estimateTokens(turn.arguments) + 8);
      }
      const structured = structuredEcho(call.body.response_format, contentText(call.body.messages.findLast((m) => m.role === 'user')?.content));
      if (structured !== null) return answer({ role: 'assistant', content: structured }, 'stop', estimateTokens(structured));
      const limit = call.body.max_completion_tokens ?? call.body.max_tokens ?? Number.POSITIVE_INFINITY;
      const pieces = streamPieces(turn.text);
      const kept = pieces.slice(0, limit);
      return answer({ role: 'assistant', content: kept.join('') }, kept.length < pieces.length ? 'length' : 'stop', kept.length);
    },

    async *chatStream(call) {
      const { completion, usage } = await this.chat(call);
      const choice = completion.choices[0];
      const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
      const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: string | null = null): ChatChunk => ({
        ...base,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      yield chunk({ role: 'assistant', content: '' });
      const toolCalls = choice?.message.tool_calls;
      if (toolCalls && toolCalls.length > 0) {
        for (const [index, toolCall] of toolCalls.entries()) {
          // Arguments arrive in fragments, as real upstreams send them.
          yield chunk({ tool_calls: [{ index, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] });
          for (const piece of toolCall.function.arguments.match(/.{1,8}/gs) ?? []) {
            if (call.signal.aborted) aborted(call.signal);
            yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
          }
        }
      } else {
        for (const piece of streamPieces(choice?.message.content ?? '')) {
          if (call.signal.aborted) aborted(call.signal);
          yield chunk({ content: piece });
        }
      }
      yield {
        ...chunk({}, choice?.finish_reason ?? 'stop'),
        usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
      };
    },

    async embeddings(call) {
      const dimensions = call.dimensions ?? LOCAL_EMBED_DIMENSIONS;
      const texts = call.inputs.map((input) => (typeof input === 'string' ? input : tokensToText(input)));
      return {
        vectors: texts.map((text) => Array.from(embedText(text, dimensions))),
        inputTokens: call.inputs.reduce<number>((sum, input) => sum + (typeof input === 'string' ? estimateTokens(input) : input.length), 0),
      };
    },
  };
}
