import { Agent, errors } from 'undici';
import { ApiError } from '../errors.js';
import {
  upstreamBadResponse,
  upstreamFailed,
  upstreamRateLimited,
  upstreamRejectedCredentials,
  upstreamRejectedRequest,
  upstreamTimeout,
  upstreamUnreachable,
} from './errors.js';
import { exchange, type ArrivingBody } from './upstream-exchange.js';
import type { CancelSignal } from '../cancellation.js';

export interface UpstreamTimeouts {
  /** To open a connection. */
  connectMs: number;
  /** From sending the request to the response headers. */
  firstByteMs: number;
  /** Between two pieces of the body (a stalled stream). */
  idleMs: number;
}

/**
 * What kind of failure an upstream error was, for the routing policy (which decides whether to
 * try again, move on to another target, or give up): `repeatable` when sending the same request
 * to the same target again cannot do the work twice.
 */
export type FailureClass =
  | 'connection'
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'overloaded'
  | 'auth'
  | 'context_length'
  | 'bad_response'
  | 'request';

export interface UpstreamFault {
  failure: FailureClass;
  repeatable: boolean;
  /** The upstream's `retry-after`, in milliseconds. */
  retryAfterMs: number | null;
}

const faults = new WeakMap<ApiError, UpstreamFault>();

/** The fault behind an error this module threw (null for any other error). */
export const faultOf = (error: unknown): UpstreamFault | null => (error instanceof ApiError ? (faults.get(error) ?? null) : null);

function withFault(error: ApiError, fault: UpstreamFault): ApiError {
  faults.set(error, fault);
  return error;
}

/** The two ways a provider says a prompt does not fit the model's window (OpenAI's code, Anthropic's message). */
const isContextLength = (said: { message: string; code: string | null }) =>
  said.code === 'context_length_exceeded' || /prompt is too long|maximum context length/i.test(said.message);

export interface UpstreamOptions {
  /** The provider id, for messages. */
  provider: string;
  /** e.g. `https://api.openai.com/v1`; request paths are appended to it. */
  baseUrl: string;
  /** Sent with every request (credentials go here and never into an error). */
  headers: Record<string, string>;
  timeouts?: Partial<UpstreamTimeouts>;
  /** Connections kept per origin. */
  connections?: number;
}

export interface SendInit {
  method?: 'GET' | 'POST';
  body?: unknown;
  signal: CancelSignal;
  headers?: Record<string, string>;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: ArrivingBody;
}

const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 10_000, firstByteMs: 60_000, idleMs: 60_000 };

/** `retry-after` as seconds (a number of seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.ceil(Number(text));
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The upstream's own error message, if its body has one (OpenAI and Anthropic shapes). */
function upstreamMessage(text: string): { message: string; code: string | null; param: string | null } {
  const stringOrNull = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value.slice(0, 200) : null);
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown; code?: unknown; param?: unknown; type?: unknown } | string; message?: unknown };
    const error = typeof json.error === 'object' && json.error !== null ? json.error : null;
    const message = typeof json.error === 'string' ? json.error : (error?.message ?? json.message);
    // What the upstream said about which field, and why, is what the client needs to fix it.
    if (typeof message === 'string') return { message: message.slice(0, 500), code: stringOrNull(error?.code), param: stringOrNull(error?.param) };
  } catch {
    // not JSON
  }
  return { message: text.slice(0, 200) || 'no message', code: null, param: null };
}

/**
 * HTTP to one upstream: a keep-alive pool and connect/first-byte/idle timeouts; one try per call.
 * Failures become the API's errors (502/504, or the upstream's 400/429 where the fault is the
 * request's), each with its fault (`faultOf`): whether and where to try again is the routing
 * policy's to decide (server/services/inference/routing), for single models and routes alike.
 */
export function createUpstream(options: UpstreamOptions) {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const dispatcher = new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    connections: options.connections ?? 128,
  });
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const prefix = base.pathname.replace(/\/+$/, '');
  // A credential both as sent (`Bearer sk-…`) and bare, as an upstream may quote it.
  const secrets = Object.values(options.headers)
    .flatMap((v) => [v, v.replace(/^(Bearer|Basic|Token)\s+/i, '')])
    .filter((v) => v.length >= 8);
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);

  /**
   * Maps a thrown transport error, before the headers (`request`) or while reading the body
   * (`body`); null when it is the caller's own abort.
   */
  function transportError(error: unknown, signal: CancelSignal, phase: 'request' | 'body' = 'request'): ApiError | null {
    if (signal.aborted) return null;
    const fault = (failure: FailureClass, repeatable: boolean) => ({ failure, repeatable, retryAfterMs: null });
    if (error instanceof errors.ConnectTimeoutError) return withFault(upstreamTimeout(options.provider, 'connect'), fault('timeout', true));
    // No answer in time may still mean the upstream is doing (and billing) the work: sent again
    // to the same target it could be done twice.
    if (error instanceof errors.HeadersTimeoutError) return withFault(upstreamTimeout(options.provider, 'first byte'), fault('timeout', false));
    if (error instanceof errors.BodyTimeoutError) return withFault(upstreamTimeout(options.provider, 'idle'), fault('timeout', false));
    const code = (error as { code?: string }).code ?? (error as Error).name;
    if (phase === 'body') return withFault(upstreamBadResponse(options.provider, `the answer broke off: ${code}`), fault('bad_response', false));
    return withFault(upstreamUnreachable(options.provider, code), fault('connection', true));
  }

  async function failureFor(status: number, response: UpstreamResponse): Promise<ApiError> {
    const text = redact(await response.body.text().catch(() => ''));
    const after = retryAfterSeconds(response.headers['retry-after']);
    const fault = (failure: FailureClass, repeatable: boolean) => ({ failure, repeatable, retryAfterMs: after === null ? null : after * 1000 });
    if (status === 429) return withFault(upstreamRateLimited(options.provider, after), fault('rate_limited', true));
    // Our credentials or our quota (402): another provider may still serve the request.
    if (status === 401 || status === 403 || status === 402) return withFault(upstreamRejectedCredentials(options.provider), fault('auth', false));
    if (status === 408) return withFault(upstreamTimeout(options.provider, 'first byte'), fault('timeout', true));
    if (status >= 400 && status < 500) {
      const said = upstreamMessage(text);
      return withFault(upstreamRejectedRequest(options.provider, status, said), fault(isContextLength(said) ? 'context_length' : 'request', false));
    }
    return withFault(upstreamFailed(options.provider, status), fault(status === 529 ? 'overloaded' : 'server_error', true));
  }

  return {
    provider: options.provider,

    /**
     * Sends a request and resolves with a 2xx response whose body the caller reads (JSON or a
     * stream). Everything else is thrown as an ApiError; the caller's abort is rethrown as is.
     */
    async send(path: string, init: SendInit): Promise<UpstreamResponse> {
      const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
      let response: UpstreamResponse;
      try {
        const headers = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers, ...init.headers };
        response = await exchange(dispatcher, { origin, path: `${prefix}${path}`, method: init.method ?? 'POST', headers, body: payload }, init.signal);
      } catch (error) {
        throw transportError(error, init.signal) ?? error;
      }
      if (response.status >= 200 && response.status < 300) return response;
      throw await failureFor(response.status, response);
    },

    /**
     * The body of a response from `send`, as it arrives; a stalled or broken body is thrown as the
     * API's error. A reader that stops early cuts a body still arriving (its connection closes).
     */
    async *read(response: UpstreamResponse, signal: CancelSignal): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of response.body) yield chunk;
      } catch (error) {
        throw transportError(error, signal, 'body') ?? error;
      }
    },

    /** `send`, then the body as JSON (a body that is not JSON is a 502). */
    async json<T = unknown>(path: string, init: SendInit): Promise<T> {
      const response = await this.send(path, init);
      const chunks: Buffer[] = [];
      for await (const chunk of this.read(response, init.signal)) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        return JSON.parse(text) as T;
      } catch {
        throw upstreamBadResponse(options.provider, 'not JSON');
      }
    },

    /** Text from the upstream (an error message it streamed) with this server's credentials taken out. */
    redact,

    close: () => dispatcher.close(),
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
