import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { BillingRecord } from '../../src/contract/schemas/account.js';
import type { CheckoutSession } from '../../src/contract/schemas/common.js';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { signEvent, verifyEvent } from '../payments/signature.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import type { CheckoutSessionRecord, Page, Store } from '../store/types.js';
import { CREDIT_PACKS } from './credits.js';

/** The smallest purchase that is not a pack, in credits ($1). */
export const MINIMUM_PURCHASE_CREDITS = 100;
const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

interface CheckoutInput {
  credits: number;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  referral?: string | undefined;
}

/** A webhook event as the processor sends it (Stripe's shape). */
interface ProcessorEvent {
  id: string;
  type: string;
  data: { object: { id?: unknown; object?: unknown } };
}

function parseEvent(raw: Buffer): ProcessorEvent {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidRequest('The event is not JSON.', null, 'invalid_json');
  }
  const event = json as Partial<ProcessorEvent>;
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.data?.object !== 'object') {
    throw invalidRequest('The event needs an id, a type and data.object.', null, 'invalid_event');
  }
  return event as ProcessorEvent;
}

/**
 * Payments through the built-in sandbox processor: checkout sessions for credit packs and app
 * funding, a checkout page served by this server, and the webhook receiver. Paying in the sandbox
 * signs an event and hands it to the very receiver a real processor's callbacks reach, so the
 * credits are granted by one code path only — when the processor reports the session paid.
 */
export function createPaymentsService(deps: { store: Store; clock: Clock; webhookSecret: string }) {
  const { store, clock } = deps;
  const now = () => clock.now();

  async function open(
    session: Omit<CheckoutSessionRecord, 'id' | 'status' | 'createdAt' | 'paidAt' | 'expiresAt' | 'successUrl' | 'cancelUrl' | 'referral'>,
    input: CheckoutInput,
    origin: string,
  ): Promise<z.input<typeof CheckoutSession>> {
    const at = now();
    const record: CheckoutSessionRecord = {
      ...session,
      id: `cs_${randomBytes(16).toString('hex')}`,
      status: 'open',
      successUrl: input.success_url ?? null,
      cancelUrl: input.cancel_url ?? null,
      referral: input.referral ?? null,
      createdAt: at.toISOString(),
      paidAt: null,
      expiresAt: new Date(at.getTime() + SESSION_LIFETIME_MS).toISOString(),
    };
    await store.checkout.create(record);
    return presentSession(record, origin);
  }

  function presentSession(session: CheckoutSessionRecord, origin: string): z.input<typeof CheckoutSession> {
    return {
      id: session.id,
      object: 'checkout.session',
      url: `${origin}/sandbox/checkout/${session.id}`,
      status: session.status,
      credits: microToCredits(session.creditsMicro),
      amount_usd: session.amountUsdCents / 100,
      expires_at: session.expiresAt,
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

  async function receive(raw: Buffer, signature: string | undefined) {
    verifyEvent(raw, signature, deps.webhookSecret, Math.floor(now().getTime() / 1000));
    const event = parseEvent(raw);
    const at = now().toISOString();
    // An event seen before changes nothing. It is recorded only after it was applied: applying
    // is idempotent, so a crash in between just means it is applied again, harmlessly, on retry.
    if (await store.checkout.eventSeen(event.id)) return { received: true as const };
    if (event.type === 'checkout.session.completed' && typeof event.data.object.id === 'string') {
      await store.checkout.complete(event.data.object.id, at);
    }
    await store.checkout.recordEvent(event.id, event.type, at);
    return { received: true as const };
  }

  return {
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
        },
        input,
        origin,
      );
    },

    /** The webhook receiver: verified, deduplicated by event id, tolerant of order. */
    receive,

    async session(id: string) {
      const session = await store.checkout.get(id);
      if (!session) throw notFound(`No checkout session ${id}.`, 'checkout_session_not_found');
      return session;
    },

    /** Sandbox: the buyer pays. The processor (us) reports it through the webhook receiver. */
    async pay(id: string) {
      const session = await this.session(id);
      if (session.status === 'complete') throw conflict('This checkout session is already paid.', 'already_paid');
      if (session.status !== 'open' || session.expiresAt <= now().toISOString()) {
        throw conflict('This checkout session has expired or was cancelled.', 'checkout_session_expired');
      }
      const payload = JSON.stringify({
        id: `evt_${randomBytes(12).toString('hex')}`,
        type: 'checkout.session.completed',
        data: { object: { id, object: 'checkout.session', payment_status: 'paid' } },
      });
      const signature = signEvent(payload, deps.webhookSecret, Math.floor(now().getTime() / 1000));
      await receive(Buffer.from(payload), signature);
      return session;
    },

    /** Sandbox: the buyer gives up; the session can no longer be paid. */
    async cancel(id: string) {
      const session = await this.session(id);
      if (!(await store.checkout.expire(id)) && session.status === 'complete') {
        throw conflict('This checkout session is already paid.', 'already_paid');
      }
      return session;
    },

    async billing(developerId: string, page: Page) {
      const result = await store.checkout.listForDeveloper(developerId, page);
      const status = { open: 'pending', complete: 'paid', expired: 'canceled' } as const;
      const present = (session: CheckoutSessionRecord): z.input<typeof BillingRecord> => ({
        id: session.id,
        kind: session.kind,
        description: session.description,
        amount_usd: session.amountUsdCents / 100,
        credits: microToCredits(session.creditsMicro),
        status: status[session.status],
        created_at: session.createdAt,
        paid_at: session.paidAt,
      });
      return { data: result.items.map(present), limit: page.limit, offset: page.offset, total: result.total };
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
