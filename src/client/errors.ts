/** The server answered with an error (`{error: {message, type, code, param}}`). */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error: { message: string; type: string; code: string | null; param: string | null } },
    readonly requestId: string | null,
  ) {
    super(body.error.message);
    this.name = 'ApiRequestError';
  }
}

/** No answer at all: the server is down, the address is wrong, or the connection broke. */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectionError';
  }
}

/** Wraps a non-JSON or non-error-shaped failure answer into the error body shape. */
export function errorBodyFrom(status: number, payload: unknown): ApiRequestError['body'] {
  if (
    typeof payload === 'object' &&
    payload !== null &&
    'error' in payload &&
    typeof (payload as { error: unknown }).error === 'object'
  ) {
    const error = (payload as { error: Record<string, unknown> }).error;
    return {
      error: {
        message: String(error.message ?? `HTTP ${status}`),
        type: String(error.type ?? 'api_error'),
        code: typeof error.code === 'string' ? error.code : null,
        param: typeof error.param === 'string' ? error.param : null,
      },
    };
  }
  const text = typeof payload === 'string' ? payload.slice(0, 200) : '';
  return { error: { message: `HTTP ${status}${text ? `: ${text}` : ''}`, type: 'api_error', code: null, param: null } };
}

/** A failure answer (status ≥ 400) as the error it is, whatever its body holds. */
export function apiErrorFrom(status: number, text: string, requestId: string | null): ApiRequestError {
  let payload: unknown = text;
  try {
    payload = JSON.parse(text);
  } catch {
    // keep the text
  }
  return new ApiRequestError(status, errorBodyFrom(status, payload), requestId);
}

/** A success answer's JSON body (`null` when empty); anything else is no svc API answering. */
export function parseJsonAnswer(baseUrl: string, status: number, text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    // Something between us and the API (a proxy, a wrong URL) answered with a page.
    const body = errorBodyFrom(status, `not JSON from ${baseUrl} (is this an svc API?): ${text}`);
    throw new ApiRequestError(status, { error: { ...body.error, type: 'invalid_response' } }, null);
  }
}
