import { invalidRequest } from '../../errors.js';
import { isJsonObject } from '../../providers/json-object.js';

/**
 * Hosted tools billed beside the tokens, which this server does not price: served, they would be
 * neither held nor charged, and no request is served below its cost.
 *
 * OpenAI's, billed per use: a code interpreter container per session, file search per call, each
 * generated image.
 */
const UNPRICED_HOSTED_TOOLS = new Set(['code_interpreter', 'file_search', 'image_generation']);

/** The `type` of each tool a request offers, in its place (undefined where it names none). */
const toolTypes = (tools: unknown): (string | undefined)[] =>
  Array.isArray(tools) ? tools.map((tool: unknown) => (isJsonObject(tool) && typeof tool.type === 'string' ? tool.type : undefined)) : [];

const notPriced = (type: string, i: number, unit: string, instead: string) =>
  invalidRequest(`The hosted tool '${type}' is billed ${unit} upstream and has no price on this server, so it is not offered; ${instead}.`, `tools[${i}]`, 'tool_not_priced');

/** Refuses a Responses request that offers a hosted tool this server cannot price, naming the tool. */
export function assertToolsPriced(tools: unknown): void {
  toolTypes(tools).forEach((type, i) => {
    if (type !== undefined && UNPRICED_HOSTED_TOOLS.has(type)) throw notPriced(type, i, 'per use', 'use function tools, or web_search');
  });
}

/** Anthropic's server code execution tool, in every version (`code_execution_20250825`, …). */
const CODE_EXECUTION = /^code_execution_\d{8}$/;
/**
 * Anthropic bills code execution by the container hour, but not beside a web search or web fetch
 * tool of version 20260209 or later (there it filters their results, for tokens alone).
 */
const FREEING_TOOL = /^(?:web_search|web_fetch)_(\d{8})$/;
const FREE_FROM_VERSION = 20260209;

/**
 * Refuses a Messages request that offers Anthropic's code execution where it is billed (by the
 * container hour, which this server does not price), naming the tool: served, its containers
 * would be neither held for nor charged.
 */
export function assertMessagesToolsPriced(tools: unknown): void {
  const types = toolTypes(tools);
  const free = types.some((type) => Number(FREEING_TOOL.exec(type ?? '')?.[1] ?? 0) >= FREE_FROM_VERSION);
  if (free) return;
  types.forEach((type, i) => {
    if (type !== undefined && CODE_EXECUTION.test(type)) {
      throw notPriced(type, i, 'by the container hour', 'use client tools, or offer it beside web_search_20260209 or web_fetch_20260209, with which it is free');
    }
  });
}
