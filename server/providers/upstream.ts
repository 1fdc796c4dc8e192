import { Agent, errors, request, type Dispatcher } from 'undici';
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

export interface UpstreamTimeouts {
  /** To open a connection. */
  connectMs: number;
  /** From sending the request to the response headers. */
  firstByteMs: number;
  /** Between two pieces of the body (a stalled stream). */
  idleMs: number;
}

export interface RetryPolicy {
  /** Retries after the first try (so `attempts: 2` means up to three tries). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface UpstreamOptions {
  /** The provider id, for messages. */
  provider: string;
  /** e.g. `https://api.openai.com/v1`; request paths are appended to it. */
  baseUrl: string;
  /** Sent with every request (credentials go here and never into an error). */
  headers: Record<string, string>;
  timeouts?: Partial<UpstreamTimeouts>;
  retry?: Partial<RetryPolicy>;
  /** Waits between retries; tests inject one that records the delay instead of waiting. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Connections kept per origin. */
  connections?: number;
}

export interface SendInit {
  method?: 'GET' | 'POST';
  body?: unknown;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 10_000, firstByteMs: 60_000, idleMs: 60_000 };
const DEFAULT_RETRY: RetryPolicy = { attempts: 2, baseDelayMs: 250, maxDelayMs: 8_000 };

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

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
 * HTTP to one upstream: a keep-alive pool, connect/first-byte/idle timeouts, and retries with
 * backoff on connection errors, 429 and 5xx — only before the first byte has reached the caller,
 * so nothing is ever sent twice to a client. Failures become the API's errors (502/504, or the
 * upstream's 400/429 where the fault is the request's).
 */
export function createUpstream(options: UpstreamOptions) {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const sleep = options.sleep ?? defaultSleep;
  const dispatcher = new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    connections: options.connections ?? 128,
  });
  const base = options.baseUrl.replace(/\/+$/, '');
  // A credential both as sent (`Bearer sk-…`) and bare, as an upstream may quote it.
  const secrets = Object.values(options.headers)
    .flatMap((v) => [v, v.replace(/^(Bearer|Basic|Token)\s+/i, '')])
    .filter((v) => v.length >= 8);
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);

  /**
   * Maps a thrown transport error, before the headers (`request`) or while reading the body
   * (`body`); null when it is the caller's own abort.
   */
  function transportError(error: unknown, signal: AbortSignal, phase: 'request' | 'body' = 'request'): ApiError | null {
    if (signal.aborted) return null;
    if (error instanceof errors.ConnectTimeoutError) return upstreamTimeout(options.provider, 'connect');
    if (error instanceof errors.HeadersTimeoutError) return upstreamTimeout(options.provider, 'first byte');
    if (error instanceof errors.BodyTimeoutError) return upstreamTimeout(options.provider, 'idle');
    const code = (error as { code?: string }).code ?? (error as Error).name;
    if (phase === 'body') return upstreamBadResponse(options.provider, `the answer broke off: ${code}`);
    return upstreamUnreachable(options.provider, code);
  }

  function backoff(attempt: number): number {
    const exponential = retry.baseDelayMs * 2 ** attempt;
    return Math.min(retry.maxDelayMs, exponential / 2 + Math.random() * (exponential / 2));
  }

  async function failureFor(status: number, response: UpstreamResponse): Promise<ApiError> {
    const text = redact(await response.body.text().catch(() => ''));
    if (status === 429) return upstreamRateLimited(options.provider, retryAfterSeconds(response.headers['retry-after']));
    if (status === 401 || status === 403) return upstreamRejectedCredentials(options.provider);
    if (status >= 400 && status < 500) return upstreamRejectedRequest(options.provider, status, upstreamMessage(text));
    return upstreamFailed(options.provider, status);
  }

  return {
    provider: options.provider,

    /**
     * Sends a request and resolves with a 2xx response whose body the caller reads (JSON or a
     * stream). Everything else is thrown as an ApiError; the caller's abort is rethrown as is.
     */
    async send(path: string, init: SendInit): Promise<UpstreamResponse> {
      const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
      for (let attempt = 0; ; attempt++) {
        let response: UpstreamResponse;
        try {
          const answer = await request(`${base}${path}`, {
            method: init.method ?? 'POST',
            headers: {
              ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
              ...options.headers,
              ...init.headers,
            },
            body: payload,
            signal: init.signal,
            dispatcher,
          });
          response = { status: answer.statusCode, headers: answer.headers, body: answer.body };
        } catch (error) {
          const mapped = transportError(error, init.signal);
          if (!mapped) throw error;
          // No answer in time may still mean the upstream is doing (and billing) the work: a
          // retry could do it twice. Only failures to connect or to be answered at all retry.
          if (attempt < retry.attempts && !(error instanceof errors.HeadersTimeoutError)) {
            await sleep(backoff(attempt), init.signal);
            continue;
          }
          throw mapped;
        }
        if (response.status >= 200 && response.status < 300) return response;
        const retryable = response.status === 429 || response.status >= 500;
        if (retryable && attempt < retry.attempts) {
          const after = retryAfterSeconds(response.headers['retry-after']);
          const delay = after === null ? backoff(attempt) : after * 1000;
          if (delay <= retry.maxDelayMs) {
            await response.body.dump();
            await sleep(delay, init.signal);
            continue;
          }
        }
        throw await failureFor(response.status, response);
      }
    },

    /** The body of a response from `send`, as it arrives; a stalled or broken body is thrown as the API's error. */
    async *read(response: UpstreamResponse, signal: AbortSignal): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of response.body) yield chunk as Buffer;
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
