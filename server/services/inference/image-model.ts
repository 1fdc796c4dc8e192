import type { ChatChunk, ChatCompletionJson } from '../../providers/types.js';
import { IMAGE_TOOL_NAME } from '../tool-catalog.js';

/** The arguments of an image tool call with `model` replaced; unparsable arguments stay as they are. */
export function withImageModel(args: string, imageModel: string): string {
  try {
    const parsed = JSON.parse(args) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return args;
    return JSON.stringify({ ...parsed, model: imageModel });
  } catch {
    return args;
  }
}

/** A finished completion with every image tool call's `model` argument set to `imageModel`. */
export function rewriteCompletion(completion: ChatCompletionJson, imageModel: string | undefined): ChatCompletionJson {
  if (!imageModel) return completion;
  return {
    ...completion,
    choices: completion.choices.map((choice) => ({
      ...choice,
      message: {
        ...choice.message,
        tool_calls: choice.message.tool_calls?.map((call) =>
          call.function.name === IMAGE_TOOL_NAME
            ? { ...call, function: { ...call.function, arguments: withImageModel(call.function.arguments, imageModel) } }
            : call,
        ),
      },
    })),
  };
}

/**
 * The same for a stream, where arguments arrive in fragments: the fragments of an image tool call
 * are held back and sent as one rewritten fragment before the chunk that finishes the choice.
 */
export function rewriteChunks(chunks: AsyncIterable<ChatChunk>, imageModel: string | undefined): AsyncIterable<ChatChunk> {
  // Without an image model there is nothing to rewrite: no extra layer per chunk.
  return imageModel ? rewriteImageCalls(chunks, imageModel) : chunks;
}

async function* rewriteImageCalls(chunks: AsyncIterable<ChatChunk>, imageModel: string): AsyncGenerator<ChatChunk> {
  const held = new Map<number, string>();
  for await (const incoming of chunks) {
    let chunk = incoming;
    const choice = chunk.choices[0];
    const calls = choice?.delta.tool_calls;
    if (choice && calls) {
      const passed = calls.flatMap((call) => {
        if (call.function?.name === IMAGE_TOOL_NAME) held.set(call.index, '');
        if (!held.has(call.index)) return [call];
        held.set(call.index, (held.get(call.index) ?? '') + (call.function?.arguments ?? ''));
        // The opening fragment (id, name) goes out; the arguments wait.
        return call.id ? [{ ...call, function: { ...call.function, arguments: '' } }] : [];
      });
      if (passed.length === 0 && !choice.finish_reason && !chunk.usage) continue;
      chunk = { ...chunk, choices: [{ ...choice, delta: { ...choice.delta, tool_calls: passed.length > 0 ? passed : undefined } }] };
    }
    if (choice?.finish_reason && held.size > 0) {
      yield {
        ...chunk,
        usage: undefined,
        choices: [
          {
            index: choice.index,
            delta: { tool_calls: [...held].map(([index, args]) => ({ index, function: { arguments: withImageModel(args, imageModel) } })) },
            finish_reason: null,
          },
        ],
      };
      held.clear();
    }
    yield chunk;
  }
}
