import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../src/contract/errors.js';

/** What node's HTTP parser refuses before any handler runs, as the status and error code answered. */
const REFUSALS: Record<string, { status: string; code: ErrorCode; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: '408 Request Timeout',
    code: 'request_timeout',
    message: 'The request took too long to arrive (its headers, or its whole body).',
  },
  HPE_HEADER_OVERFLOW: {
    status: '431 Request Header Fields Too Large',
    code: 'headers_too_large',
    message: 'The request headers are too large.',
  },
};
const MALFORMED: { status: string; code: ErrorCode; message: string } = { status: '400 Bad Request', code: 'malformed_request', message: 'The request is not valid HTTP/1.1.' };

/**
 * The server's `clientError` handler: answers in the API's error shape when nothing has been
 * written on the connection yet, then destroys the socket. Destroying is what frees the slot:
 * `end()` alone leaves the socket half-open (the server allows half-open connections) for as long
 * as the client keeps its side open — forever, for a slow-loris client.
 */
export function refuseClientError(error: Error & { code?: string }, socket: Duplex): void {
  const refusal = REFUSALS[error.code ?? ''] ?? MALFORMED;
  const untouched = (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0;
  // ECONNRESET: the client is gone, there is nobody to answer.
  if (error.code !== 'ECONNRESET' && socket.writable && untouched) {
    const body = JSON.stringify({ error: { message: refusal.message, type: 'invalid_request_error', code: refusal.code, param: null } });
    socket.write(
      `HTTP/1.1 ${refusal.status}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
