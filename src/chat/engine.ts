import type { Client } from '../client/client.js';
import { clientOperations } from '../client/operation-refs.js';
import { ApiRequestError, errorBodyFrom } from '../client/errors.js';
import type { ClientTool, ToolCall, TurnEvent, Usage, WireMessage } from './types.js';

export interface TurnOptions {
  model: string;
  /** The conversation so far, system prompt first; the turn's new messages are not in it. */
  messages: WireMessage[];
  tools: ClientTool[];
  maxToolRounds: number;
  signal: AbortSignal;
  /** Asked before a tool that writes runs; false declines it (the model is told so). */
  approve(call: ToolCall, tool: ClientTool): Promise<boolean>;
  onEvent(event: TurnEvent): void;
}

export type TurnEnd = 'done' | 'cancelled' | 'max_tool_rounds';

interface Streamed {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage | null;
  /** The model that answered, as the chunks name it. */
  model: string | null;
}

/** One streamed completion, its text and tool calls put back together from the chunks. */
async function streamOnce(client: Client, options: TurnOptions, messages: WireMessage[]): Promise<Streamed> {
  const body = {
    model: options.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(options.tools.length > 0 ? { tools: options.tools.map((tool) => tool.definition) } : {}),
  };
  const result: Streamed = { content: '', toolCalls: [], usage: null, model: null };
  for await (const event of client.stream(clientOperations.chatCompletions, { body, signal: options.signal })) {
    if (event.data === '[DONE]') break;
    const chunk = JSON.parse(event.data) as {
      error?: unknown;
      model?: string;
      usage?: Usage | null;
      choices?: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[];
    };
    if (chunk.error) throw new ApiRequestError(502, errorBodyFrom(502, chunk), null);
    if (chunk.usage) result.usage = chunk.usage;
    if (typeof chunk.model === 'string') result.model = chunk.model;
    const delta = chunk.choices?.[0]?.delta;
    if (delta?.content) {
      result.content += delta.content;
      options.onEvent({ type: 'delta', text: delta.content });
    }
    for (const fragment of delta?.tool_calls ?? []) {
      const call = (result.toolCalls[fragment.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.function.name += fragment.function.name;
      if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
    }
  }
  result.toolCalls = result.toolCalls.filter(Boolean);
  return result;
}

async function runTool(call: ToolCall, options: TurnOptions): Promise<{ result: string; declined: boolean }> {
  const tool = options.tools.find((t) => t.definition.function.name === call.function.name);
  if (!tool) return { result: JSON.stringify({ error: `No tool named ${call.function.name}.` }), declined: false };
  if (tool.writes && !(await options.approve(call, tool))) {
    return { result: JSON.stringify({ error: 'The user declined this tool call.' }), declined: true };
  }
  let args: unknown;
  try {
    args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
  } catch {
    return { result: JSON.stringify({ error: 'The arguments are not valid JSON.' }), declined: false };
  }
  try {
    return { result: await tool.run(args), declined: false };
  } catch (error) {
    // A failing tool tells the model why, as its result.
    return { result: JSON.stringify({ error: (error as Error).message }), declined: false };
  }
}

/**
 * One turn of the conversation: streams the answer, runs the tool calls it asks for (approval
 * first where a tool writes), sends their results back, and repeats until the model answers in
 * text or `maxToolRounds` is reached. Cancelling keeps what was already said.
 */
export async function runTurn(client: Client, options: TurnOptions): Promise<TurnEnd> {
  const messages = [...options.messages];
  const keep = (message: WireMessage, cancelled = false) => {
    messages.push(message);
    options.onEvent({ type: 'message', message, ...(cancelled ? { cancelled } : {}) });
  };
  for (let round = 0; ; round++) {
    let partial = '';
    const onEvent = (event: TurnEvent) => {
      if (event.type === 'delta') partial += event.text;
      options.onEvent(event);
    };
    let streamed: Streamed;
    try {
      streamed = await streamOnce(client, { ...options, onEvent }, messages);
    } catch (error) {
      if (!options.signal.aborted) throw error;
      if (partial) keep({ role: 'assistant', content: partial }, true);
      return 'cancelled';
    }
    if (streamed.usage) options.onEvent({ type: 'usage', usage: streamed.usage, model: streamed.model });
    const calls = streamed.toolCalls;
    if (calls.length === 0) {
      keep({ role: 'assistant', content: streamed.content });
      return 'done';
    }
    if (round >= options.maxToolRounds) {
      // Calls that will not run stay out of the history: every call kept must have a result.
      keep({ role: 'assistant', content: streamed.content || `(Stopped: the limit of ${options.maxToolRounds} tool rounds was reached.)` });
      return 'max_tool_rounds';
    }
    keep({ role: 'assistant', content: streamed.content || null, tool_calls: calls });
    for (const call of calls) {
      if (options.signal.aborted) {
        keep({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ error: 'Cancelled by the user.' }) }, true);
        continue;
      }
      options.onEvent({ type: 'tool_call', call });
      const { result, declined } = await runTool(call, options);
      options.onEvent({ type: 'tool_result', call, result, declined });
      keep({ role: 'tool', tool_call_id: call.id, content: result });
    }
    if (options.signal.aborted) return 'cancelled';
  }
}
