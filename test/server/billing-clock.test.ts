import { describe, expect, it } from 'vitest';
import { manualClock } from '../../server/clock.js';
import type { PaymentProcessor } from '../../server/payments/processor.js';
import { createProcessors } from '../../server/payments/processors.js';
import { createSandboxProcessor } from '../../server/payments/sandbox.js';
import { createBillingClock } from '../../server/services/subscriptions/billing-clock.js';
import { createPlanCatalog } from '../../server/payments/plans.js';
import { createSqliteStore } from '../../server/store/sqlite/index.js';
import type { SubscriptionRecord } from '../../server/store/types.js';

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

describe('the billing clock', () => {
  it('reaches every due subscription, even behind more than a batch the processor will report later', async () => {
    const store = createSqliteStore(':memory:');
    const clock = manualClock('2026-03-01T00:00:00.000Z');
    const plans = createPlanCatalog();
    // 250 subscriptions whose period has ended; the processor moves on only every fifth one now
    // (the others it will report by webhook), as Stripe does.
    for (let n = 0; n < 250; n++) await store.subscriptions.apply(subscription(n, '2026-02-28T00:00:00.000Z'));
    const asked: string[] = [];
    const processor = {
      name: 'stripe',
      webhookSecret: 'whsec_test_0123456789',
      async endPeriod(sub: SubscriptionRecord) {
        asked.push(sub.id);
        if (Number(sub.id.slice(4)) % 5 !== 0) return false;
        await store.subscriptions.apply({ ...sub, currentPeriodStart: sub.currentPeriodEnd, currentPeriodEnd: '2026-03-28T00:00:00.000Z', stateVersion: 2 });
        return true;
      },
    } as unknown as PaymentProcessor;
    const sandbox = createSandboxProcessor({ store, clock, plans, webhookSecret: 'whsec_sandbox_0123456789' });
    const processors = createProcessors('stripe', sandbox, processor);
    const billing = createBillingClock({ store, clock, plans, processors, log: () => {} });
    await billing.start();
    await billing.idle();
    expect(new Set(asked).size).toBe(250);
    expect(asked).toHaveLength(250);
    expect(await store.subscriptions.due(clock.now().toISOString(), 1000)).toHaveLength(200);
    await billing.stop();
    await store.close();
  });
});
