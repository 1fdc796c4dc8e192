import { readText, send, type TransportRequest } from './transport.js';

/** One request and its whole answer, headers included: what `svc api -i` and `--verbose` show. */
export interface Exchange {
  request: TransportRequest;
  status: number;
  statusText: string;
  httpVersion: string;
  /** The answer's headers in the order they came, names as sent. */
  headers: Array<[string, string]>;
  requestId: string | null;
  text: string;
}

export async function exchange(request: TransportRequest): Promise<Exchange> {
  const response = await send(request);
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.push([response.rawHeaders[i] as string, response.rawHeaders[i + 1] as string]);
  const requestId = response.headers['x-request-id'];
  return {
    request,
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    httpVersion: response.httpVersion,
    headers,
    requestId: typeof requestId === 'string' ? requestId : null,
    text: await readText(response),
  };
}
