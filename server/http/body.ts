import type { IncomingMessage } from 'node:http';
import { ApiError, invalidRequest } from '../errors.js';

/** Reads the whole request body, refusing more than `limitBytes` with a 413. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new ApiError(413, 'request_too_large', `The request body is larger than ${limitBytes} bytes.`, 'request_too_large');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; the content type must say JSON. An empty body is `{}`. */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return {};
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json' && !type?.endsWith('+json')) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Send the body as JSON with "Content-Type: application/json" (got ${type ? `"${type}"` : 'none'}).`,
      'unsupported_media_type',
    );
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw invalidRequest(`The body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
}
