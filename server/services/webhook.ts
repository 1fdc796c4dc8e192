import type { Clock } from '../clock.js';
import { parsePaymentEvent } from '../payments/events.js';
import type { PaymentProcessor } from '../payments/processor.js';
import { verifyEvent } from '../payments/signature.js';
import type { Store } from '../store/types.js';
import type { SubscriptionReports } from './subscriptions/reports.js';

/**
 * The payment processor's webhook receiver (`POST /subscriptions/webhook`): verified against the
 * processor's secret, applied once per event id, in any order. Order does not matter because
 * each effect is idempotent on its own key (a session credits once, a period grants once) and
 * subscription states carry their time, so an older one arriving late changes nothing.
 */
export function createWebhookReceiver(deps: { store: Store; clock: Clock; processor: PaymentProcessor; reports: SubscriptionReports }) {
  const { store, clock, reports } = deps;

  return async function receive(raw: Buffer, signature: string | undefined) {
    verifyEvent(raw, signature, deps.processor.webhookSecret, Math.floor(clock.now().getTime() / 1000));
    const event = parsePaymentEvent(raw);
    // Recorded only after it was applied: applying is idempotent, so a crash in between just
    // means the processor's retry applies it again, harmlessly.
    if (await store.checkout.eventSeen(event.id)) return { received: true as const };
    const at = clock.now().toISOString();
    switch (event.kind) {
      case 'checkout_completed':
        await store.checkout.complete(event.sessionId, at);
        break;
      case 'subscription':
        await reports.state(event.state, event.created);
        break;
      case 'invoice_paid':
        await reports.invoicePaid(event);
        break;
      case 'ignored':
        break;
    }
    await store.checkout.recordEvent(event.id, event.kind === 'ignored' ? event.type : event.kind, at);
    return { received: true as const };
  };
}

export type WebhookReceiver = ReturnType<typeof createWebhookReceiver>;
