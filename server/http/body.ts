import type { IncomingMessage } from 'node:http';
import { ApiError, invalidRequest } from '../errors.js';

/**
 * Reads the whole request body, refusing more than `limitBytes` with a 413. Read with listeners
 * rather than `for await`: the async iterator a stream makes for each loop cost every request
 * more than the rest of the read (#28). What the loop did, this does: a body over the limit is
 * read no further, a request closed or failed before its end is a client that went away.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new ApiError(413, 'request_too_large', `The request body is larger than ${limitBytes} bytes.`, 'request_too_large');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new ClientClosedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        // Read no further (the rest stays unread, and the 413 closes the connection): what the
        // loop's early exit did, leaving the socket to the answer.
        done();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    // The client hung up before its body was whole: nobody is left to answer.
    const onGone = () => {
      done();
      reject(new ClientClosedError());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

/** The client went away mid-request: logged as a closed connection, never answered, never a bug. */
export class ClientClosedError extends Error {
  constructor() {
    super('the client closed the connection before its request was complete');
  }
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
  const text = raw.toString('utf8');
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw invalidRequest(`The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`, null, 'json_too_deep');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
}

/** No request needs more; every recursive reader after the parser (zod, upstream adapters) is then safe. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep brackets and braces nest in JSON text, strings skipped: one pass, no recursion, so
 * a hostile body is measured before anything recursive reads it. Stops counting past the limit.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > MAX_JSON_DEPTH) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
