import type { ServerResponse } from 'node:http';
import { errorAnswer, type ErrorProtocol } from '../error-shapes.js';
import type { ApiError } from '../errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** An error in the shape of the protocol the route speaks (see error-shapes.ts). */
export function sendError(res: ServerResponse, error: ApiError, protocol: ErrorProtocol = 'openai'): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = res.getHeader('request-id');
  const { status, body } = errorAnswer(error, protocol, typeof requestId === 'string' ? requestId : null);
  sendJson(res, status, body, error.headers);
}
