import type { Clock } from '../../clock.js';
import type { Processors } from '../../payments/processors.js';
import type { Store } from '../../store/types.js';
import type { PlanCatalog } from '../../payments/plans.js';

/**
 * The longest the clock sleeps: a period end set by a webhook from elsewhere is seen this soon, and
 * a period that ended while its processor has not reported the next one is asked about this often.
 */
const MAX_SLEEP_MS = 60_000;
const BATCH = 100;

/**
 * Ends subscription periods when they end, whether or not anyone is looking: at each active
 * subscription's period end it asks the processor to move it on (bill the next period, apply a
 * scheduled downgrade, or end it when canceled). It sleeps until the next end; a manual clock
 * (tests) wakes it whenever the time jumps.
 */
export function createBillingClock(deps: { store: Store; clock: Clock; plans: PlanCatalog; processors: Processors; log: (line: string) => void }) {
  const { store, clock, plans, processors } = deps;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let run: Promise<void> = Promise.resolve();
  let again = false;

  async function endDuePeriods(): Promise<void> {
    // Each subscription once per run. One the processor will report later stays due until then,
    // in front of the others (soonest end first): they are skipped past, never waited behind.
    let skipped = 0;
    for (;;) {
      const due = await store.subscriptions.due(clock.now().toISOString(), BATCH, skipped);
      if (due.length === 0) return;
      for (const sub of due) {
        if (stopped) return;
        const next = sub.scheduledDowngrade ?? sub;
        try {
          // A live subscription whose processor is no longer configured waits (and is logged).
          const processor = processors.for(sub.livemode);
          if (!(await processor.endPeriod(sub, plans.find(next.tier, next.interval).priceId))) skipped++;
        } catch (error) {
          skipped++;
          deps.log(`billing clock: subscription ${sub.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }

  /** Sleeps until the next period end after `after` (the time the run that ends now began at). */
  async function plan(after = clock.now()): Promise<void> {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    // The next end still to come: one already past waits on its processor (Stripe renews it, and its
    // report re-plans), and planning at it would wake the clock again at once, and again.
    const next = await store.subscriptions.nextPeriodEnd(after.toISOString());
    const wait = next === null ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(next) - clock.now().getTime()));
    timer = setTimeout(() => void wake(), wait);
    timer.unref();
  }

  /** Runs now, or right after the run in progress: runs never overlap. */
  function wake(): Promise<void> {
    if (stopped) return run;
    again = true;
    run = run
      .then(async () => {
        if (!again) return;
        again = false;
        // Across instances on one database, one runs the clock; the others only keep planning,
        // ready to take over if it stops. An end reached while the run ran is planned at once.
        const began = clock.now();
        if (await store.coordination.leads('billing-clock')) await endDuePeriods();
        await plan(began);
      })
      .catch((error: unknown) => deps.log(`billing clock: ${error instanceof Error ? error.message : String(error)}`));
    return run;
  }

  clock.onJump?.(() => void wake());

  return {
    start: wake,
    /** Re-plans after a period end may have changed (a new subscription, a processor's report). */
    replan: () => {
      if (!stopped) run = run.then(() => plan()).catch(() => {});
    },
    /** Resolves once all work asked for is done, including work queued meanwhile (tests wait on it). */
    async idle() {
      let current;
      do {
        current = run;
        await current;
      } while (current !== run);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      return run;
    },
  };
}

export type BillingClock = ReturnType<typeof createBillingClock>;
