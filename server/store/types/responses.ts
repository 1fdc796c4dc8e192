import type { AppScope } from './records.js';

// Responses of the Responses API as stored, with the events of background ones.

/** Who a response belongs to: the caller (its app, its user or null for the app's keys) in its mode. */
export interface ResponseOwner extends AppScope {
  address: string | null;
}

/** A response of the Responses API, as stored for `GET /responses/{id}`. */
export interface StoredResponse extends ResponseOwner {
  id: string;
  status: string;
  body: Record<string, unknown>;
  /** The input items it answered, previous turns included. */
  input: Record<string, unknown>[];
  /** Its id at an upstream with its own Responses API, or null. */
  upstreamId: string | null;
  createdAt: string;
  expiresAt: string;
}

/** One event of a background response's stream, as it was sent (`data` is the JSON text). */
export interface StoredResponseEvent {
  sequenceNumber: number;
  event: string;
  data: string;
}
