import { sseData } from './sse';

/** The platform's API: called straight from the browser, with the user's identity token. */
const API_URL = import.meta.env.VITE_SVC_API_URL || '__SVC_API_URL__';
export const MODEL = import.meta.env.VITE_SVC_MODEL || 'local/echo';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

interface ErrorBody {
  error?: { message?: string };
}

interface ChatChunk extends ErrorBody {
  choices?: Array<{ delta: { content?: string | null } }>;
}

/** The platform refused. Status 401 means the identity token is no longer valid: sign in again. */
export class PlatformError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The response, or its error as a PlatformError (the platform's messages say what to fix). */
export async function ensureOk(response: Response): Promise<Response> {
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as ErrorBody;
  throw new PlatformError(body.error?.message ?? `${response.status} ${response.statusText}`, response.status);
}

/** One call as the signed-in user: `Authorization: Bearer <identity token>` says who the user is and which app. */
async function call(token: string, path: string, options: { body?: unknown; signal?: AbortSignal } = {}) {
  const response = await fetch(`${API_URL}${path}`, {
    method: options.body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: options.signal ?? null,
  });
  return ensureOk(response);
}

/** The user's spendable credits (1 credit = $0.01). */
export async function creditBalance(token: string): Promise<number> {
  const body = (await (await call(token, '/credits/balance')).json()) as { credits: number };
  return body.credits;
}

/** The answer to the conversation, piece by piece as the model writes it. */
export async function* streamChat(token: string, messages: readonly ChatMessage[], signal?: AbortSignal): AsyncGenerator<string> {
  const response = await call(token, '/chat/completions', { body: { model: MODEL, messages, stream: true }, signal });
  if (!response.body) throw new PlatformError('The platform answered without a stream.', response.status);
  for await (const data of sseData(response.body)) {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as ChatChunk;
    // A failure after the stream started arrives as an event of its own.
    if (chunk.error) throw new PlatformError(chunk.error.message ?? 'The answer failed.', 502);
    const text = chunk.choices?.[0]?.delta.content;
    if (text) yield text;
  }
}
