import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyOperation } from '../../src/contract/operation.js';
import { NoFields } from '../../src/contract/schemas/common.js';
import type { ErrorProtocol } from '../error-shapes.js';
import { ApiError, apiErrorOf, invalidRequest, notFound, notImplemented } from '../errors.js';
import { authorize } from '../auth/authorize.js';
import type { PendingRateCount, Principal } from '../auth/principal.js';
import { StoreUnavailableError } from '../store/types.js';
import type { Handler, HandlerTable } from '../handlers/types.js';
import type { Services } from '../services/index.js';
import { ClientClosedError, parseJsonBody, readBody } from './body.js';
import { sendError, sendJson } from './respond.js';
import { SseReply } from '../streams.js';
import { writeStream } from './event-stream.js';
import { answerPreflight, applyCors } from './cors.js';
import { handleSandboxPage, isSandboxPage } from './sandbox-pages.js';
import { isMetricsPath } from '../metrics/endpoint.js';
import type { createRouter } from './router.js';
import { parseOrThrow } from '../validation.js';
import { ChatCompletionBody } from '../../src/contract/schemas/inference.js';
import { plainChatBody } from './plain-chat-body.js';
import { timeOrderedId } from '../ids.js';
import { Cancellation, type CancelSignal } from '../cancellation.js';

/**
 * Quick checks of the commonest bodies, by the schema each mirrors: what one gives is what the
 * schema's parse would; what it cannot judge (undefined) goes to zod (plain-chat-body.ts).
 */
const QUICK_BODIES = new Map<unknown, (value: unknown) => unknown>([[ChatCompletionBody, plainChatBody]]);

export interface PipelineOptions {
  router: ReturnType<typeof createRouter>;
  handlers: HandlerTable;
  services: Services;
  maxBodyBytes: number;
  /** Check every answer against the contract's response schema (on in tests: a mismatch is a bug). */
  validateResponses: boolean;
  log: (line: string) => void;
  /** `GET /metrics`, outside the contract (server/metrics/endpoint.ts). */
  metrics?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * Query strings as an object; a repeated key is refused rather than silently picking one. A list
 * in the `name[]=a&name[]=b` style (what OpenAI's SDKs send for `include`) is `name` = `a,b`.
 */
function queryObject(search: URLSearchParams | null): Record<string, string> {
  const query: Record<string, string> = {};
  if (!search) return query;
  for (const [key, value] of search) {
    if (key.endsWith('[]') && key.length > 2) {
      const name = key.slice(0, -2);
      query[name] = name in query ? `${query[name]},${value}` : value;
      continue;
    }
    if (key in query) throw invalidRequest(`The query parameter '${key}' is given more than once.`, key);
    query[key] = value;
  }
  return query;
}

/** A path of plain characters only: nothing a URL parser would resolve, decode or rewrite. */
const PLAIN_PATH = /^\/[\w\-/]*$/;

/**
 * The request target's path and query. A plain path (every API call's) is taken as it is,
 * without a URL parser's work; anything else is resolved as a URL would be.
 */
function requestTarget(target: string): { pathname: string; search: URLSearchParams | null } {
  const question = target.indexOf('?');
  const path = question < 0 ? target : target.slice(0, question);
  if (PLAIN_PATH.test(path) && !target.includes('#')) return { pathname: path, search: question < 0 ? null : new URLSearchParams(target.slice(question + 1)) };
  const url = new URL(target, 'http://placeholder');
  return { pathname: url.pathname, search: url.searchParams };
}

/** The protocol whose shape the operation's errors take (see `protocol` in the contract). */
function protocolOf(operation: AnyOperation, headers: IncomingMessage['headers']): ErrorProtocol {
  if (operation.protocol === 'anthropic-if-asked') return headers['anthropic-version'] ? 'anthropic' : 'openai';
  return operation.protocol ?? 'openai';
}

function describeUnexpected(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** The request pipeline: route → authenticate → parse → handle → respond. */
export function createPipeline(options: PipelineOptions) {
  const { router, handlers, services } = options;

  async function run(req: IncomingMessage, res: ServerResponse, requestId: string, signal: CancelSignal, answer: { protocol: ErrorProtocol }) {
    const url = requestTarget(req.url ?? '/');
    const method = req.method ?? 'GET';
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const match = router.match(method === 'HEAD' ? 'GET' : method, url.pathname);
    if (method === 'OPTIONS' && match.kind === 'wrong_method') return answerPreflight(res, origin, match.allow);
    if (match.kind === 'not_found') {
      throw notFound(`No route for ${method} ${url.pathname}. The API lives under /api/v1 (see /api/v1/docs/swagger.json).`, 'route_not_found');
    }
    if (match.kind === 'wrong_method') {
      const allow = match.allow.join(', ');
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}; use ${allow}.`, 'method_not_allowed', null, { allow });
    }
    const operation: AnyOperation = match.operation;
    answer.protocol = protocolOf(operation, req.headers);
    const principal = await services.auth.authenticate(req.headers, operation.auth);
    authorize(principal, operation);
    applyCors(res, origin, principal);
    let rateCount: PendingRateCount | undefined;
    if (principal) {
      if (operation.metered) {
        // Counted by its hold, in the same step (one round trip on a shared store), which sets
        // the rate headers; a 429 is then the meter's, with its usage row.
        rateCount = { plan: await services.limiter.planCount(principal, answer.protocol), counted: false };
        principal.rateCount = rateCount;
      } else {
        const limits = await services.limiter.countRequest(principal, answer.protocol);
        for (const [name, value] of Object.entries(limits.headers)) res.setHeader(name, value);
      }
      // Budget, rate and routing headers are known deep in the meter and the router, once a request is held and served.
      principal.answerHeader = (name, value) => res.setHeader(name, value);
    }
    try {
      const result = await parseAndHandle(req, operation, match.params, url.search, principal, requestId, signal);
      if (rateCount) await countLeftOver(res, rateCount);
      if (result instanceof SseReply) return await writeStream(res, result, signal);
      if (options.validateResponses) {
        const check = operation.response.safeParse(result);
        if (!check.success) {
          throw new Error(`response of ${operation.id} breaks its contract: ${JSON.stringify(check.error.issues.slice(0, 3))}`);
        }
      }
      sendJson(res, operation.successStatus ?? 200, result);
    } catch (error) {
      if (rateCount) await countLeftOver(res, rateCount);
      throw error;
    }
  }

  /**
   * A metered request that ended before its hold (a bad body, a refusal before the meter) still
   * counts against its caller's rate limit, and says so in its answer's headers.
   */
  async function countLeftOver(res: ServerResponse, rateCount: PendingRateCount): Promise<void> {
    if (rateCount.counted) return;
    rateCount.counted = true;
    const standing = await services.limiter.countAlone(rateCount.plan).catch(() => null);
    if (!standing || res.headersSent) return;
    for (const [name, value] of Object.entries(services.limiter.headersOf(rateCount.plan, standing))) res.setHeader(name, value);
  }

  /** The request's params, query and body parsed against its operation, and its handler's answer. */
  async function parseAndHandle(
    req: IncomingMessage,
    operation: AnyOperation,
    matched: Record<string, string>,
    search: URLSearchParams | null,
    principal: Principal | null,
    requestId: string,
    signal: CancelSignal,
  ): Promise<unknown> {
    const params = operation.params ? parseOrThrow(operation.params, matched, 'path') : {};
    // No query string on an operation that takes none (every inference call): NoFields' parse of {} is {}, without zod.
    const query = !operation.query && !search ? {} : parseOrThrow(operation.query ?? NoFields, queryObject(search), 'query');
    const rawBody = await readBody(req, options.maxBodyBytes);
    let body: unknown = {};
    if (operation.body && !operation.rawBody) {
      const json = parseJsonBody(rawBody, req.headers['content-type']);
      body = QUICK_BODIES.get(operation.body)?.(json) ?? parseOrThrow(operation.body, json, 'body');
    } else if (!operation.rawBody && rawBody.length > 0) {
      const parsed = parseJsonBody(rawBody, req.headers['content-type']);
      if (typeof parsed !== 'object' || parsed === null || Object.keys(parsed).length > 0) {
        throw invalidRequest(`${operation.method} ${operation.path} takes no request body.`, null, 'unexpected_body');
      }
    }
    const handler = handlers[operation.id as keyof HandlerTable] as Handler<AnyOperation> | undefined;
    if (!handler) throw notImplemented(operation.id);
    const host = req.headers.host ?? 'localhost';
    return handler({
      params,
      query,
      body,
      principal,
      services,
      request: { id: requestId, headers: req.headers, rawBody, signal, origin: `http://${host}` },
    } as Parameters<Handler<AnyOperation>>[0]);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = timeOrderedId('req');
    // `request-id` is what Anthropic's SDKs read (`_request_id`); `x-request-id` what the rest do.
    res.setHeader('x-request-id', requestId);
    res.setHeader('request-id', requestId);
    const answer = { protocol: 'openai' as ErrorProtocol };
    const aborter = new Cancellation();
    res.on('close', () => {
      if (!res.writableFinished) aborter.cancel();
    });
    try {
      // Every request passes here: the API's own paths skip the sandbox pages without a wait.
      if (isSandboxPage(req.url) && (await handleSandboxPage(req, res, services))) return;
      if (options.metrics && isMetricsPath(req.url)) return await options.metrics(req, res);
      await run(req, res, requestId, aborter.signal, answer);
    } catch (error) {
      if (error instanceof ApiError) {
        if (error.status === 413) res.setHeader('connection', 'close');
        sendError(res, error, answer.protocol);
        return;
      }
      if (error instanceof ClientClosedError) {
        options.log(`[${requestId}] client closed the connection mid-request`);
        res.destroy();
        return;
      }
      // The client hung up while its answer was being made: whatever the work failed with after
      // that (the upstream call aborted), nobody is left to answer, and it is no bug. Inference
      // has recorded it as client_closed.
      if (aborter.signal.aborted) {
        options.log(`[${requestId}] client closed the connection before its answer (${error instanceof Error ? error.message : String(error)})`);
        return;
      }
      if (error instanceof StoreUnavailableError) options.log(`[${requestId}] ${error.message}`);
      const known = apiErrorOf(error);
      if (known) {
        sendError(res, known, answer.protocol);
        return;
      }
      options.log(`[${requestId}] unexpected error: ${describeUnexpected(error)}`);
      sendError(res, new ApiError(500, 'server_error', `Internal error (request ${requestId}). This is a bug; please report it.`, 'internal_error'), answer.protocol);
    }
  };
}
