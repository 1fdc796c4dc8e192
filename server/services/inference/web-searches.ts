import { invalidRequest } from '../../errors.js';

/**
 * Web searches are billed per call (issue 23), so a hold must know the most a request can run.
 * Providers cap them only when asked: Anthropic's web-search tool by its `max_uses`, the Responses
 * API by `max_tool_calls`. A request that sets no cap is sent with this one, so that what is held
 * is an upper bound of what is billed (README: "Web searches").
 */
export const DEFAULT_WEB_SEARCHES = 10;

type Tool = Record<string, unknown>;

const toolsOf = (tools: unknown): Tool[] => (Array.isArray(tools) ? tools.filter((tool): tool is Tool => typeof tool === 'object' && tool !== null) : []);

const isPositiveInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** Anthropic's server web-search tool, in every version (`web_search_20250305`, …). */
const isAnthropicSearch = (tool: Tool) => typeof tool.type === 'string' && tool.type.startsWith('web_search_');

/** The Responses API's web-search tool (`web_search`, `web_search_preview`, and their dated versions). */
const isResponsesSearch = (tool: Tool) => typeof tool.type === 'string' && /^web_search(?:_preview)?(?:_\d{4}_\d{2}_\d{2})?$/.test(tool.type);

/**
 * A Messages request with each web-search tool capped (its own `max_uses`, or the default), and
 * the most searches it can run: the sum of the caps. Nothing changes without such a tool. A
 * `max_uses` that is neither null nor a whole number above 0 is refused, as Anthropic refuses it
 * (its schema: an integer, exclusive minimum 0), rather than sent out as some other cap.
 */
export function cappedMessagesSearches<T extends { tools?: unknown }>(body: T): { body: T; searches: number } {
  const tools = toolsOf(body.tools);
  if (!tools.some(isAnthropicSearch)) return { body, searches: 0 };
  let searches = 0;
  const capped = tools.map((tool, i) => {
    if (!isAnthropicSearch(tool)) return tool;
    if (tool.max_uses !== undefined && tool.max_uses !== null && !isPositiveInteger(tool.max_uses)) {
      throw invalidRequest(`tools.${i}.max_uses: Input should be a whole number greater than 0`, `tools[${i}].max_uses`);
    }
    const uses = isPositiveInteger(tool.max_uses) ? tool.max_uses : DEFAULT_WEB_SEARCHES;
    searches += uses;
    return { ...tool, max_uses: uses };
  });
  return { body: { ...body, tools: capped }, searches };
}

/**
 * Whether a Responses request may search the web: it offers a web-search tool, or it names a
 * stored prompt (`prompt.id`), whose tools the upstream adds and the gateway never sees.
 */
const mayRespondWithSearches = (body: { tools?: unknown; prompt?: unknown }) => toolsOf(body.tools).some(isResponsesSearch) || (body.prompt !== undefined && body.prompt !== null);

/**
 * A Responses request with its built-in tool calls capped where it may search the web (its own
 * `max_tool_calls`, or the default), and the most searches it can run. Nothing changes when it
 * cannot search.
 */
export function cappedResponsesSearches<T extends { tools?: unknown; max_tool_calls?: number | null; prompt?: unknown }>(body: T): { body: T; searches: number } {
  if (!mayRespondWithSearches(body)) return { body, searches: 0 };
  const calls = isPositiveInteger(body.max_tool_calls) ? body.max_tool_calls : DEFAULT_WEB_SEARCHES;
  return { body: { ...body, max_tool_calls: calls }, searches: calls };
}

/**
 * The web searches a chat completion makes: OpenAI's search models search once for each request
 * that carries `web_search_options` (billed per call, and counted in no usage field). OpenRouter's
 * `web` plugin bills per result found, a price this server does not have: refused by name.
 */
export function chatSearches(body: { web_search_options?: unknown; plugins?: unknown }): number {
  if (Array.isArray(body.plugins)) {
    body.plugins.forEach((plugin: unknown, i) => {
      if (typeof plugin === 'object' && plugin !== null && (plugin as { id?: unknown }).id === 'web') {
        throw invalidRequest(
          "OpenRouter's web plugin is billed per search result, a price this server does not have; send web_search_options to a search model instead.",
          `plugins[${i}]`,
          'unsupported_parameter',
        );
      }
    });
  }
  return body.web_search_options == null ? 0 : 1;
}
