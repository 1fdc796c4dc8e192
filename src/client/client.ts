import type { BodyInput, HttpMethod, ParamsInput, QueryInput, ResponseOf } from '../contract/operation.js';
import { apiErrorFrom, parseJsonAnswer } from './errors.js';
import { parseEventStream, type ServerSentEvent } from '../contract/sse.js';
import { readText, send, type TransportRequest } from './transport.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  userAgent?: string;
}

/** What the client needs of an operation: a contract operation or its manifest entry. */
export interface OperationRef {
  method: HttpMethod;
  path: string;
  absolutePath?: boolean;
}

export interface CallInput<O> {
  params?: ParamsInput<O>;
  query?: QueryInput<O>;
  body?: BodyInput<O>;
  signal?: AbortSignal;
}

/** The request URL of an operation: path placeholders filled, query appended. */
export function operationUrl(baseUrl: string, op: OperationRef, params: object = {}, query: object = {}): URL {
  const values = params as Record<string, unknown>;
  const path = op.path.replace(/\{([a-z_]+)\+?\}/g, (_, name: string) => encodeURIComponent(String(values[name] ?? '')));
  const base = new URL(baseUrl);
  const prefix = op.absolutePath ? '' : '/api/v1';
  const url = new URL(`${prefix}${path}`, base.origin);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
  }
  return url;
}

/** A typed client for every operation of the contract. */
export function createClient(options: ClientOptions) {
  const headers = (json: boolean): Record<string, string> => ({
    accept: 'application/json',
    'user-agent': options.userAgent ?? 'svc-cli',
    ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

  /** The HTTP request an operation call makes (`svc api -i`/`--verbose` send it themselves). */
  function requestFor<O extends OperationRef>(op: O, input: CallInput<O>, accept?: string): TransportRequest {
    const hasBody = input.body !== undefined;
    return {
      method: op.method,
      url: operationUrl(options.baseUrl, op, input.params ?? {}, input.query ?? {}),
      headers: { ...headers(hasBody), ...(accept ? { accept } : {}) },
      body: hasBody ? JSON.stringify(input.body) : undefined,
      signal: input.signal,
    };
  }

  async function open<O extends OperationRef>(op: O, input: CallInput<O>, accept?: string) {
    const response = await send(requestFor(op, input, accept));
    const status = response.statusCode ?? 0;
    if (status >= 400) {
      const requestId = response.headers['x-request-id'];
      throw apiErrorFrom(status, await readText(response), typeof requestId === 'string' ? requestId : null);
    }
    return response;
  }

  return {
    baseUrl: options.baseUrl,
    headers,
    requestFor,

    async call<O extends OperationRef>(op: O, input: CallInput<O> = {}): Promise<ResponseOf<O>> {
      const response = await open(op, input);
      return parseJsonAnswer(options.baseUrl, response.statusCode ?? 0, await readText(response)) as ResponseOf<O>;
    },

    /** Calls a streaming operation and yields its server-sent events as they arrive. */
    async *stream<O extends OperationRef>(op: O, input: CallInput<O>): AsyncGenerator<ServerSentEvent> {
      const response = await open(op, input, 'text/event-stream');
      for await (const event of parseEventStream(response)) {
        // Events already received are not handed out once the caller has cancelled.
        if (input.signal?.aborted) throw input.signal.reason ?? new Error('aborted');
        yield event;
      }
    },
  };
}

export type Client = ReturnType<typeof createClient>;
