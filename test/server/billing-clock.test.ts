import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../server/clock.js';
import type { PaymentProcessor } from '../../server/payments/processor.js';
import { createProcessors } from '../../server/payments/processors.js';
import { createSandboxProcessor } from '../../server/payments/sandbox.js';
import { createBillingClock } from '../../server/services/subscriptions/billing-clock.js';
import { createPlanCatalog } from '../../server/payments/plans.js';
import { createSqliteStore } from '../../server/store/sqlite/index.js';
import type { Store, SubscriptionRecord } from '../../server/store/types.js';

const subscription = (n: number, end: string): SubscriptionRecord => ({
  id: `sub_${String(n).padStart(4, '0')}`,
  developerId: 'dev',
  appUuid: `app-${n}`,
  address: '',
  customerId: null,
  tier: 'starter',
  interval: 'month',
  status: 'active',
  currentPeriodStart: '2026-02-01T00:00:00.000Z',
  currentPeriodEnd: end,
  cancelAtPeriodEnd: false,
  priceId: null,
  scheduledDowngrade: null,
  stateVersion: 1,
  createdAt: '2026-02-01T00:00:00.000Z',
  updatedAt: '2026-02-01T00:00:00.000Z',
  livemode: true,
});

/**
 * The billing clock over `count` subscriptions whose period ended the day before, on a store of its
 * own, with Stripe as a processor that answers `endPeriod` (each subscription asked is in `asked`).
 */
async function clockOverEndedPeriods(count: number, endPeriod: (sub: SubscriptionRecord, store: Store) => Promise<boolean>) {
  const store = createSqliteStore(':memory:');
  const clock = manualClock('2026-03-01T00:00:00.000Z');
  const plans = createPlanCatalog();
  for (let n = 0; n < count; n++) await store.subscriptions.apply(subscription(n, '2026-02-28T00:00:00.000Z'));
  const asked: string[] = [];
  const processor = {
    name: 'stripe',
    webhookSecret: 'whsec_test_0123456789',
    async endPeriod(sub: SubscriptionRecord) {
      asked.push(sub.id);
      return endPeriod(sub, store);
    },
  } as unknown as PaymentProcessor;
  const sandbox = createSandboxProcessor({ store, clock, plans, webhookSecret: 'whsec_sandbox_0123456789' });
  const billing = createBillingClock({ store, clock, plans, processors: createProcessors('stripe', sandbox, processor), log: () => {} });
  return { store, clock, asked, billing };
}

describe('the billing clock', () => {
  it('reaches every due subscription, even behind more than a batch the processor will report later', async () => {
    // The processor moves on only every fifth one now (the others it will report by webhook), as Stripe does.
    const { store, clock, asked, billing } = await clockOverEndedPeriods(250, async (sub, store) => {
      if (Number(sub.id.slice(4)) % 5 !== 0) return false;
      await store.subscriptions.apply({ ...sub, currentPeriodStart: sub.currentPeriodEnd, currentPeriodEnd: '2026-03-28T00:00:00.000Z', stateVersion: 2 });
      return true;
    });
    await billing.start();
    await billing.idle();
    expect(new Set(asked).size).toBe(250);
    expect(asked).toHaveLength(250);
    expect(await store.subscriptions.due(clock.now().toISOString(), 1000)).toHaveLength(200);
    await billing.stop();
    await store.close();
  });

  it('asks again about a period its processor will report a minute on, not at once and again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Stripe renews by itself, and reports it by webhook (or never, for a price not ours).
    const { store, asked, billing } = await clockOverEndedPeriods(3, async () => false);
    try {
      await billing.start();
      await billing.idle();
      expect(asked).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(1_000);
      await billing.idle();
      expect(asked).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(60_000);
      await billing.idle();
      expect(asked).toHaveLength(6);
      await billing.stop();
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });
});
