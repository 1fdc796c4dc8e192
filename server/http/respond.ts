import type { ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(
    res,
    error.status,
    { error: { message: error.message, type: error.type, code: error.code, param: error.param } },
    error.headers,
  );
}
