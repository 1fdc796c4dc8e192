import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ConnectionError } from './errors.js';

/**
 * HTTP on node:http: it loads in a few milliseconds (a CLI call is mostly start-up), keeps
 * connections alive for the chat, and streams bodies for server-sent events.
 */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export function send(request: TransportRequest): Promise<IncomingMessage> {
  const secure = request.url.protocol === 'https:';
  const make = secure ? httpsRequest : httpRequest;
  const { signal } = request;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const req = make(request.url, {
      method: request.method,
      headers: {
        ...request.headers,
        ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
      },
      agent: secure ? agents.https : agents.http,
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
