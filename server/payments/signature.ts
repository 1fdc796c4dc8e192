import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidRequest } from '../errors.js';

/** How old a signed event may be, in seconds (Stripe's default tolerance). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const hmac = (secret: string, timestamp: number, payload: string | Buffer) =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');

/** The `Stripe-Signature` header for a payload: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`. */
export function signEvent(payload: string, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmac(secret, timestamp, payload)}`;
}

/**
 * Checks a `Stripe-Signature` header against the raw body: a v1 signature made with the secret,
 * at most SIGNATURE_TOLERANCE_SECONDS old (or early). Throws a 400 that says why otherwise.
 */
export function verifyEvent(payload: Buffer, header: string | undefined, secret: string, nowSeconds: number): void {
  if (!header) throw invalidRequest('The Stripe-Signature header is missing.', null, 'signature_missing');
  const parts = header.split(',').map((part) => part.trim().split('=') as [string, string | undefined]);
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  if (!Number.isInteger(timestamp) || signatures.length === 0) {
    throw invalidRequest('The Stripe-Signature header must read t=<timestamp>,v1=<signature>.', null, 'signature_malformed');
  }
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    throw invalidRequest(`The signature's timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s from now.`, null, 'signature_stale');
  }
  const expected = Buffer.from(hmac(secret, timestamp, payload), 'hex');
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw invalidRequest('The signature does not match the payload.', null, 'signature_invalid');
}
