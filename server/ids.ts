import { randomBytes, randomUUID } from 'node:crypto';

/** A new id of no order: the prefix, `_`, and `bytes` random bytes in hex (an item, a sandbox payment object). */
export const randomId = (prefix: string, bytes = 12) => `${prefix}_${randomBytes(bytes).toString('hex')}`;

/**
 * A new id for a row that is written once per request (the request id of every usage row and
 * ledger entry, a stored response): the prefix, `_`, and 32 hex digits. The first twelve are the
 * millisecond it was made and the other twenty random (80 bits), so ids made later sort later —
 * as OpenAI's response ids begin with their second. That order is the point: B-tree indexes take
 * keys in ascending order at their right edge, where random keys land on a different page each,
 * which the commit then writes whole (on SQLite a 4 KB WAL frame a page). `npm run bench
 * settle-keys`: a settlement after 300,000 cost 83 µs of CPU with random request ids, 36 µs with
 * these.
 */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  // randomUUID draws from a pooled entropy cache: far cheaper per request than randomBytes. Its
  // 13th hex digit is the version and its 17th the variant, neither random: both are skipped.
  const uuid = randomUUID();
  return `${prefix}_${now.toString(16).padStart(12, '0')}${uuid.slice(0, 8)}${uuid.slice(9, 13)}${uuid.slice(24, 32)}`;
}
