import { request, type Agent, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** Reads a node:http response to the end, parsing JSON when it is JSON. */
function collect(res: IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
    });
  });
}

/**
 * A request whose body the test writes by hand, for what fetch cannot do: bodies on GET,
 * chunked bodies, bodies written slowly. `respond` settles with the answer; errors from writing
 * after the server has already answered (it may close early, e.g. on a 413) are ignored.
 */
export function openRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  agent?: Agent,
): { req: ClientRequest; response: Promise<RawResponse> } {
  const req = request(`${baseUrl}${path}`, {
    method,
    headers: { connection: 'close', ...headers },
    ...(agent ? { agent } : {}),
  });
  let answered = false;
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      collect(res).then(resolve, reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
  });
  return { req, response };
}

/** One request with the body written in the given chunks (chunked encoding unless a length is set). */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string | number>; chunks?: (string | Buffer)[] } = {},
): Promise<RawResponse> {
  const { req, response } = openRequest(baseUrl, method, path, options.headers);
  for (const chunk of options.chunks ?? []) {
    if (req.destroyed) break;
    req.write(chunk);
  }
  req.end();
  return response;
}
