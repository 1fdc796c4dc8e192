/** One message someone sent to the page. */
export interface IncomingMessage {
  /** Who sent it, as the messaging platform identifies them: the key of their conversation. */
  sender: string;
  text: string;
}

/**
 * The message in a request body, or null when the body is not one. The format here is
 * `{"sender": "…", "text": "…"}`, easy to try with curl; to take your messaging platform's
 * webhook calls directly, translate its payload here.
 */
export function parseIncoming(body: string): IncomingMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { sender, text } = value as Record<string, unknown>;
  if (typeof sender !== 'string' || sender === '' || typeof text !== 'string' || text.trim() === '') return null;
  return { sender, text };
}
