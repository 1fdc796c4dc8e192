import { ApiRequestError, ConnectionError } from '../../client/errors.js';

/** A value the form itself refuses before anything is sent; `field` is the field to mark. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'FieldError';
  }
}

/** An error as a screen shows it: one line, and the form field it is about, if any. */
export interface ShownError {
  text: string;
  field: string | null;
}

/** Turns a failure into a line with what to do about it; the screen stays usable. */
export function describeError(error: unknown): ShownError {
  if (error instanceof FieldError) return { text: error.message, field: error.field };
  if (error instanceof ConnectionError) return { text: `${error.message}. Is the server running? (svc serve)`, field: null };
  if (error instanceof ApiRequestError) {
    const { message, param } = error.body.error;
    if (error.status === 401) return { text: `${message} Log in again: svc auth login --with-token.`, field: null };
    if (error.status === 501) return { text: `${message} (this server does not offer it yet)`, field: null };
    return { text: message, field: param };
  }
  return { text: error instanceof Error ? error.message : String(error), field: null };
}
