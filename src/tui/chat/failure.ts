import { ApiRequestError, ConnectionError } from '../../client/errors.js';
import type { KeyRole } from '../../contract/operation.js';

/** Who the chat's key is (GET /config's `caller`): what it may do decides what a hint suggests. */
export interface Caller {
  app_uuid: string;
  /** Null for an end user's identity token. */
  role: KeyRole | null;
}

/**
 * What to do about an empty balance, for this key: only an admin key can fund its app (an
 * inference key cannot run the command, so it is not offered to it).
 */
function fundingHint(caller: Caller | null): string {
  if (caller?.role === 'admin') return `Fund the app: \`svc api developer apps fund ${caller.app_uuid} --credits 100\`.`;
  if (caller?.role) return `This ${caller.role} key cannot add credits: ask the app's developer (or whoever holds its admin key) to fund it.`;
  return `Ask the app's developer or admin to add credits.`;
}

/**
 * A `--max-spend` session runs on a key of its own whose budget is the cap: its 402 and 401 say
 * what the cap is and how to go on, not how to fund the app or log in.
 */
function cappedSessionFailure(error: ApiRequestError, maxSpend: number): string | null {
  const { code } = error.body.error;
  if (error.status === 402 && code === 'budget_exceeded') {
    return (
      `Spending cap reached: this session may spend ${maxSpend} credits (--max-spend), and the server refuses what would cost more. ` +
      '/cost shows what was spent; to go on, start `svc chat` again (a higher --max-spend, or none).'
    );
  }
  if (error.status === 401 && code === 'key_expired') {
    return 'The key of this --max-spend session has expired (it lives a few hours): start `svc chat` again.';
  }
  return null;
}

/**
 * Turns an API failure into a line the transcript shows, with what to do about it. `maxSpend`:
 * the session's cap, when it runs on a capped key of its own.
 */
export function describeFailure(error: unknown, caller: Caller | null = null, maxSpend: number | null = null): string {
  if (error instanceof ConnectionError) return `${error.message}. Is the server running? (svc serve)`;
  if (error instanceof ApiRequestError) {
    const capped = maxSpend !== null ? cappedSessionFailure(error, maxSpend) : null;
    if (capped) return capped;
    const { message, type } = error.body.error;
    if (error.status === 401) return `${message} Log in with \`svc auth login\`.`;
    if (error.status === 402) return `${message} ${fundingHint(caller)}`;
    if (error.status === 404 && error.body.error.param === 'model') return `${message} Pick another with /model.`;
    return `${message} (${type})`;
  }
  return (error as Error).message ?? String(error);
}
