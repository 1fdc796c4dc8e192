import { invalidRequest } from '../../errors.js';

/**
 * OpenAI's hosted tools billed per use beside the tokens (a code interpreter container per
 * session, file search per call, each generated image), with no price on this server: served, they
 * would be neither held nor charged, and no request is served below its cost.
 */
const UNPRICED_HOSTED_TOOLS = new Set(['code_interpreter', 'file_search', 'image_generation']);

/** Refuses a Responses request that offers a hosted tool this server cannot price, naming the tool. */
export function assertToolsPriced(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool: unknown, i) => {
    const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && UNPRICED_HOSTED_TOOLS.has(type)) {
      throw invalidRequest(
        `The hosted tool '${type}' is billed per use upstream and has no price on this server, so it is not offered; use function tools, or web_search.`,
        `tools[${i}]`,
        'tool_not_priced',
      );
    }
  });
}
