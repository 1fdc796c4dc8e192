import type { Clock } from '../clock.js';
import { parsePaymentEvent } from '../payments/events.js';
import type { Processors } from '../payments/processors.js';
import { verifyEvent } from '../payments/signature.js';
import type { PaymentEvent } from '../payments/events.js';
import type { Store } from '../store/types.js';
import type { SubscriptionReports } from './subscriptions/reports.js';

/**
 * The payment processor's webhook receiver (`POST /subscriptions/webhook`): verified against the
 * processor's secret, applied once per event id, in any order. Order does not matter because
 * each effect is idempotent on its own key (a session credits once, a period grants once) and
 * subscription states carry their time, so an older one arriving late changes nothing.
 */
export function createWebhookReceiver(deps: { store: Store; clock: Clock; processors: Processors; reports: SubscriptionReports }) {
  const { store, clock, reports } = deps;

  /** The signer whose secret verifies the event; the last signer's refusal otherwise. */
  function signerOf(raw: Buffer, signature: string | undefined) {
    const now = Math.floor(clock.now().getTime() / 1000);
    const signers = deps.processors.signers();
    let refusal: unknown;
    for (const signer of signers) {
      try {
        verifyEvent(raw, signature, signer.secret, now);
        return signer;
      } catch (error) {
        refusal = error;
      }
    }
    throw refusal;
  }

  /** Whether the event is about live money (null when it names nothing this server knows). */
  async function livemodeOf(event: PaymentEvent): Promise<boolean | null> {
    switch (event.kind) {
      case 'checkout_completed':
        return (await store.checkout.get(event.sessionId))?.livemode ?? null;
      case 'subscription':
        return (await store.subscriptions.get(event.state.id))?.livemode ?? event.state.subject?.livemode ?? null;
      case 'invoice_paid':
        return (await store.subscriptions.get(event.subscriptionId))?.livemode ?? event.subject?.livemode ?? null;
      case 'ignored':
        return null;
    }
  }

  return async function receive(raw: Buffer, signature: string | undefined) {
    const signer = signerOf(raw, signature);
    const event = parsePaymentEvent(raw);
    // The sandbox's events move only play money (unless it is the live processor), and the live
    // processor's never touch test objects: anything else is acknowledged and changes nothing.
    const livemode = await livemodeOf(event);
    if (livemode !== null && !(livemode ? signer.live : signer.test)) return { received: true as const };
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
