/**
 * The one error type that crosses layers. Services throw it through the factories below; the
 * HTTP layer turns it into the OpenAI-shaped error body `{error: {message, type, code, param}}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (message: string, param: string | null = null, code = 'invalid_value') =>
  new ApiError(400, 'invalid_request_error', message, code, param);
export const unauthorized = (message: string, code = 'invalid_credentials') =>
  new ApiError(401, 'authentication_error', message, code);
export const insufficientCredits = (message: string) =>
  new ApiError(402, 'insufficient_credits', message, 'insufficient_credits');
export const forbidden = (message: string, code = 'permission_denied') =>
  new ApiError(403, 'permission_denied', message, code);
export const notFound = (message: string, code = 'not_found', param: string | null = null) =>
  new ApiError(404, 'not_found', message, code, param);
export const conflict = (message: string, code = 'conflict') => new ApiError(409, 'conflict', message, code);
export const notImplemented = (operationId: string) =>
  new ApiError(
    501,
    'not_implemented',
    `The operation ${operationId} is part of the API but not built into this server yet.`,
    'not_implemented',
  );
