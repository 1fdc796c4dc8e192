import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { ConnectionError } from './errors.js';

/**
 * HTTP on node:http: it loads in a few milliseconds (a CLI call is mostly start-up), keeps
 * connections alive for the chat, and streams bodies for server-sent events. TLS (node:https,
 * another 3 ms to load) is loaded only for an https URL: the local server speaks plain HTTP.
 */
type Make = (url: URL, options: RequestOptions) => ClientRequest;
const plain = { request: httpRequest as Make, agent: new HttpAgent({ keepAlive: true }) };
let secure: Promise<typeof plain> | undefined;
const transportFor = (url: URL): typeof plain | Promise<typeof plain> => {
  if (url.protocol !== 'https:') return plain;
  secure ??= import('node:https').then((https) => ({ request: https.request as Make, agent: new https.Agent({ keepAlive: true }) }));
  return secure;
};

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export async function send(request: TransportRequest): Promise<IncomingMessage> {
  const transport = await transportFor(request.url);
  const { signal } = request;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const req = transport.request(request.url, {
      method: request.method,
      headers: {
        ...request.headers,
        ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
      },
      agent: transport.agent,
    });
    // Aborts are ours to handle (not node's `signal` option, whose listener outlives the
    // request): before the answer the request is destroyed, after it the answer's body.
    let answer: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      if (answer) answer.destroy(reason);
      else req.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (response) => {
      answer = response;
      response.on('close', () => signal?.removeEventListener('abort', onAbort));
      resolve(response);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(signal.reason);
      reject(
        new ConnectionError(
          request.url.origin,
          error.code ?? 'ECONNERROR',
          `cannot reach the server at ${request.url.origin} (${error.code ?? error.message})`,
        ),
      );
    });
    req.end(request.body);
  });
}

export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
