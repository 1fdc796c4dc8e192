import { ApiError } from '../errors.js';
import type { PaymentProcessor } from './processor.js';
import type { SandboxProcessor } from './sandbox.js';

/**
 * How live money comes in (ARCHITECTURE.md §6): `stripe`, `sandbox` (development: the built-in processor
 * takes live payments, and the server says so), or `off` (live purchases answer 503; credits come
 * from operator grants). Test mode always goes through the sandbox, into test balances.
 */
import type { PaymentsMode } from '../../src/contract/schemas/surface.js';
export { PAYMENT_MODES, type PaymentsMode } from '../../src/contract/schemas/surface.js';

export function paymentsNotConfigured(): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    'Live payments are not configured on this server. The operator sets STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET ' +
      '(or runs `svc serve --payments sandbox` for development), or grants credits with `svc admin credits grant`. ' +
      'Test keys and sandbox users can pay with play money into their test balance.',
    'payments_not_configured',
  );
}

/** A payment the processor could not take (Stripe's `card_declined`): nothing was charged, nothing changed. */
export const paymentDeclined = (message: string) => new ApiError(402, 'card_error', message, 'card_declined');

/** Failures of a plan change after which the processor no longer has the downgrade planned before it. */
const downgradesLetGo = new WeakSet<object>();

/**
 * Marks a failed plan change (`changePlan`) after which the downgrade planned before it is no
 * longer planned at the processor (let go for the change, and not planned again): its record
 * must drop it too.
 */
export function letGoOfDowngrade<T>(failure: T): T {
  if (typeof failure === 'object' && failure !== null) downgradesLetGo.add(failure);
  return failure;
}

/** Whether a failed plan change let go of the downgrade planned before it (`letGoOfDowngrade`). */
export const letGoOfDowngradeBy = (failure: unknown) => typeof failure === 'object' && failure !== null && downgradesLetGo.has(failure);

/** The processor of each mode of money. */
export function createProcessors(mode: PaymentsMode, sandbox: SandboxProcessor, stripe: PaymentProcessor | null) {
  const live: PaymentProcessor | null = mode === 'stripe' ? stripe : mode === 'sandbox' ? sandbox : null;
  if (mode === 'stripe' && !stripe) throw new Error('payments mode stripe needs the Stripe processor');
  return {
    mode,
    live,
    sandbox,
    /** The processor that serves live (true) or test (false) money; live money when off is a 503. */
    for(livemode: boolean): PaymentProcessor {
      if (!livemode) return sandbox;
      if (!live) throw paymentsNotConfigured();
      return live;
    },
    /**
     * Who signed a webhook event may decide what it may change: the live processor anything,
     * the sandbox only test objects (unless it is the live processor too).
     */
    signers(): { secret: string; live: boolean; test: boolean }[] {
      const signers = [{ secret: sandbox.webhookSecret, live: live === sandbox, test: true }];
      if (live && live !== sandbox) signers.push({ secret: live.webhookSecret, live: true, test: false });
      return signers;
    },
  };
}

export type Processors = ReturnType<typeof createProcessors>;
