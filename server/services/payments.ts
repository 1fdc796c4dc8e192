import type { z } from 'zod';
import type { BillingRecord } from '../../src/contract/schemas/account.js';
import type { CheckoutSession } from '../../src/contract/schemas/common.js';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import type { Processors } from '../payments/processors.js';
import { subjectMetadata } from '../payments/events.js';
import type { SandboxProcessor } from '../payments/sandbox.js';
import { isTestMode } from '../auth/principal.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import type { BillingLine, CheckoutSessionRecord, Page, Store } from '../store/types.js';
import { CREDIT_PACKS } from './credits.js';

/** The smallest purchase that is not a pack, in credits ($1). */
export const MINIMUM_PURCHASE_CREDITS = 100;
const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface RedirectInput {
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  referral?: string | undefined;
}

interface CheckoutInput extends RedirectInput {
  credits: number;
}

/** What a session is for, before the processor opens it. */
type NewSession = Pick<
  CheckoutSessionRecord,
  'kind' | 'developerId' | 'appUuid' | 'address' | 'creditsMicro' | 'amountUsdCents' | 'description' | 'livemode'
> & {
  priceId?: string;
};

/**
 * Checkout sessions — credit packs, app funding and subscriptions — opened with the payment
 * processor and kept here, so the webhook receiver knows what a paid session grants and the
 * billing history can list them. Credits are granted only when the processor reports a session
 * paid (server/services/webhook.ts).
 */
export function createPaymentsService(deps: { store: Store; clock: Clock; processors: Processors }) {
  const { store, clock, processors } = deps;

  /** `metadata`: what else the processor is to hand back with the session's events (a subscription's sold plan). */
  async function open(session: NewSession, input: RedirectInput, origin: string, metadata: Record<string, string> = {}): Promise<z.input<typeof CheckoutSession>> {
    // Live money without a live processor is a 503 here, before anything is opened.
    const processor = processors.for(session.livemode);
    const at = clock.now();
    const expiresAt = new Date(at.getTime() + SESSION_LIFETIME_MS);
    const opened = await processor.createCheckout({
      mode: session.kind === 'subscription' ? 'subscription' : 'payment',
      description: session.description,
      amountUsdCents: session.amountUsdCents,
      priceId: session.priceId ?? null,
      successUrl: input.success_url ?? null,
      cancelUrl: input.cancel_url ?? null,
      // Ours last: what a caller adds cannot rename who pays.
      metadata: {
        ...metadata,
        svc_kind: session.kind,
        ...subjectMetadata(session),
        ...(input.referral ? { svc_referral: input.referral } : {}),
      },
      origin,
      expiresAt,
    });
    const record: CheckoutSessionRecord = {
      ...session,
      priceId: session.priceId ?? null,
      id: opened.id,
      status: 'open',
      successUrl: input.success_url ?? null,
      cancelUrl: input.cancel_url ?? null,
      referral: input.referral ?? null,
      createdAt: at.toISOString(),
      paidAt: null,
      expiresAt: expiresAt.toISOString(),
    };
    await store.checkout.create(record);
    return {
      id: record.id,
      object: 'checkout.session',
      url: opened.url,
      status: record.status,
      credits: microToCredits(record.creditsMicro),
      amount_usd: record.amountUsdCents / 100,
      expires_at: record.expiresAt,
      livemode: record.livemode,
    };
  }

  /** The price of an amount of credits: a pack's price, or one cent a credit from the minimum up. */
  function priceCents(credits: number): number {
    const pack = CREDIT_PACKS.find((p) => p.credits === credits);
    if (pack) return Math.round(pack.priceUsd * 100);
    if (!Number.isInteger(credits) || credits < MINIMUM_PURCHASE_CREDITS) {
      throw invalidRequest(
        `Buy a pack (${CREDIT_PACKS.map((p) => p.credits).join(', ')} credits) or a whole number of credits from ${MINIMUM_PURCHASE_CREDITS} up.`,
        'credits',
      );
    }
    return credits;
  }

  async function session(id: string) {
    const found = await store.checkout.get(id);
    if (!found) throw notFound(`No checkout session ${id}.`, 'checkout_session_not_found');
    return found;
  }

  /**
   * The sandbox's pages pay test sessions always, and live ones only when the sandbox is the
   * live processor (`--payments sandbox`): a live Stripe session cannot be paid with play money.
   */
  function sandboxFor(session: CheckoutSessionRecord): SandboxProcessor {
    if (session.livemode && processors.live !== processors.sandbox) {
      throw notFound('This checkout session is not one of the sandbox processor’s.', 'checkout_session_not_found');
    }
    return processors.sandbox;
  }

  return {
    open,
    session,

    purchase(principal: Principal, input: CheckoutInput, origin: string) {
      return open(
        {
          kind: 'credit_pack',
          developerId: principal.developerId,
          appUuid: principal.app.appUuid,
          address: principal.kind === 'user' ? principal.address : null,
          creditsMicro: creditsToMicro(input.credits),
          amountUsdCents: priceCents(input.credits),
          description: `${input.credits} credits`,
          livemode: !isTestMode(principal),
        },
        input,
        origin,
      );
    },

    fund(developerId: string, appUuid: string, input: CheckoutInput, origin: string) {
      return open(
        {
          kind: 'app_funding',
          developerId,
          appUuid,
          address: null,
          creditsMicro: creditsToMicro(input.credits),
          amountUsdCents: priceCents(input.credits),
          description: `${input.credits} credits for app ${appUuid}`,
          livemode: true,
        },
        input,
        origin,
      );
    },

    /** Sandbox: the buyer pays; the processor reports it through the webhook receiver. */
    async pay(id: string) {
      const found = await session(id);
      const processorOf = sandboxFor(found);
      if (found.status === 'complete') throw conflict('This checkout session is already paid.', 'already_paid');
      if (found.status !== 'open' || found.expiresAt <= clock.now().toISOString()) {
        throw conflict('This checkout session has expired or was cancelled.', 'checkout_session_expired');
      }
      if (found.kind === 'subscription') {
        // Two checkouts opened before either was paid: the second would be a second subscription.
        const current = await store.subscriptions.current({ appUuid: found.appUuid, livemode: found.livemode }, found.address ?? '');
        if (current?.status === 'active' && current.currentPeriodEnd > clock.now().toISOString()) {
          throw conflict(`A ${current.tier} (${current.interval}) subscription is already active; this checkout can no longer be paid.`, 'already_subscribed');
        }
      }
      await processorOf.paySession(found);
      // The page must not say "paid" unless the session was (a cancel may have come in between).
      const after = await session(id);
      if (after.status !== 'complete') throw conflict('This checkout session was cancelled before it was paid.', 'checkout_session_expired');
      return after;
    },

    /** Sandbox: the buyer gives up; the session can no longer be paid. */
    async cancel(id: string) {
      const found = await session(id);
      sandboxFor(found);
      if (!(await store.checkout.expire(id)) && found.status === 'complete') {
        throw conflict('This checkout session is already paid.', 'already_paid');
      }
      return found;
    },

    /** The caller's developer's billing history in the caller's mode: a test key sees only play-money lines. */
    async billing(principal: Principal, page: Page) {
      const result = await store.checkout.listForDeveloper(principal.developerId, principal.livemode, page);
      const status = { open: 'pending', complete: 'paid', expired: 'canceled' } as const;
      const present = (line: BillingLine): z.input<typeof BillingRecord> => ({
        id: line.id,
        kind: line.kind,
        description: line.description,
        amount_usd: line.amountUsdCents / 100,
        credits: microToCredits(line.creditsMicro),
        status: status[line.status],
        created_at: line.createdAt,
        paid_at: line.paidAt,
      });
      return { data: result.items.map(present), limit: page.limit, offset: page.offset, total: result.total };
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
