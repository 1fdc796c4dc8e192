import { operationUrl, type Client } from '../client/client.js';
import { ApiRequestError, ConnectionError } from '../client/errors.js';
import type { OperationManifest } from '../contract/manifest.js';
import { operationTools, requestOf, type OperationTool } from '../contract/tools-schema.js';
import type { ClientTool } from './types.js';

/**
 * `svc chat --admin-tools`: every API operation as a tool the model may call, the same tools
 * `svc docs --json` prints. Reads (GET) run at once; anything else writes, so it waits for the
 * user's approval (the chat's dialog, or `--yes` without a terminal).
 */

/**
 * A result is sent back with every later question, so a huge one (the OpenAPI document, a long
 * list) is cut: the model gets the start and is told how much there was.
 */
export const MAX_RESULT_CHARS = 50_000;

const errorResult = (message: string, type: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ error: { message, type, ...extra } });

function resultText(value: unknown): string {
  // 204 answers carry no body: say it worked rather than `null`.
  const text = JSON.stringify(value ?? { ok: true });
  if (text.length <= MAX_RESULT_CHARS) return text;
  return JSON.stringify({ truncated: true, total_chars: text.length, partial: text.slice(0, MAX_RESULT_CHARS) });
}

function argumentsObject(args: unknown): Record<string, unknown> | null {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : null;
}

/** Calls the operation; whatever happens, the model reads JSON back (an API error included). */
async function call(client: Client, { op }: OperationTool, args: unknown): Promise<string> {
  const given = argumentsObject(args);
  if (!given) return errorResult('The arguments must be a JSON object.', 'invalid_arguments');
  try {
    return resultText(await client.call(op, requestOf(op, given)));
  } catch (error) {
    if (error instanceof ApiRequestError) return JSON.stringify({ status: error.status, ...error.body });
    if (error instanceof ConnectionError) return errorResult(error.message, 'connection_error', { code: error.code });
    // requestOf: a path argument is missing.
    return errorResult((error as Error).message, 'invalid_arguments');
  }
}

/** What the approval dialog shows: the HTTP request the call would send. */
function summarize(client: Client, { op }: OperationTool, rawArguments: string): string {
  let given: Record<string, unknown> | null = null;
  try {
    given = argumentsObject(rawArguments ? JSON.parse(rawArguments) : {});
  } catch {
    // Not JSON: shown as it came; running it will say so.
  }
  if (!given) return `${op.method} ${op.path} ${rawArguments}`;
  try {
    const request = requestOf(op, given);
    const url = operationUrl(client.baseUrl, op, request.params, request.query);
    return `${op.method} ${url.pathname}${url.search}${request.body && Object.keys(request.body).length > 0 ? ` ${JSON.stringify(request.body)}` : ''}`;
  } catch (error) {
    return `${op.method} ${op.path} (${(error as Error).message})`;
  }
}

export function adminTools(manifest: readonly OperationManifest[], client: Client): ClientTool[] {
  return operationTools(manifest).map((entry) => ({
    definition: entry.tool,
    writes: entry.op.method !== 'GET',
    run: (args) => call(client, entry, args),
    summarize: (rawArguments) => summarize(client, entry, rawArguments),
  }));
}
