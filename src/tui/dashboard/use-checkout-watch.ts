import { useEffect, useRef } from 'react';
import type { BillingRecord } from './api.js';
import { usd } from './format.js';
import type { Ticker } from './ticker.js';

/** What became of a checkout: still open, or an end to say. */
export type CheckoutOutcome = { done: false } | { done: true; kind: 'info' | 'error'; text: string };

/** The billing history holds every checkout session by its id. */
export function checkoutOutcome(record: BillingRecord | undefined): CheckoutOutcome {
  if (!record || record.status === 'pending') return { done: false };
  if (record.status === 'paid') return { done: true, kind: 'info', text: `Payment received (${usd(record.amount_usd)}): ${record.description}.` };
  const ended = record.status === 'failed' ? 'Payment failed' : 'Checkout cancelled';
  return { done: true, kind: 'error', text: `${ended}, nothing was charged: ${record.description}.` };
}

/**
 * While a checkout dialog is open, its session is looked up every `everyMs` (the user pays in
 * the browser); once it is paid or cancelled, `ended` closes the dialog and says so. A look that
 * fails is tried again at the next beat.
 */
export function useCheckoutWatch(options: {
  ticker: Ticker;
  everyMs: number;
  checkoutId: string | undefined;
  billing: () => Promise<{ items: BillingRecord[] }>;
  ended: (checkoutId: string, outcome: Extract<CheckoutOutcome, { done: true }>) => void;
}) {
  const latest = useRef(options);
  latest.current = options;
  const { ticker, everyMs, checkoutId } = options;
  useEffect(() => {
    if (!checkoutId) return;
    let looking = false;
    const look = async () => {
      if (looking) return;
      looking = true;
      try {
        const page = await latest.current.billing();
        const outcome = checkoutOutcome(page.items.find((record) => record.id === checkoutId));
        if (outcome.done) latest.current.ended(checkoutId, outcome);
      } catch {
        // The next beat tries again; the dialog says how to close it by hand.
      } finally {
        looking = false;
      }
    };
    return ticker.every(everyMs, () => void look());
  }, [ticker, everyMs, checkoutId]);
}
