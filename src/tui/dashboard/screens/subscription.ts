import type { Plan, Subscription } from '../api.js';
import { day, usd } from '../format.js';
import type { ScreenAction } from '../keys.js';
import { confirmModal, type LinkModal, type Modal } from '../modal.js';
import type { DashboardSession } from '../session.js';
import { useCursor } from '../use-cursor.js';
import { dataOf, useResource } from '../use-resource.js';
import { planChange, planName } from './plan-change.js';

const periodEnd = (status: Subscription) => (status.current_period_end ? day(status.current_period_end) : 'the end of the period');

/** The caller's subscription: its status, the plans side by side, and every change to it. */
export function useSubscriptionScreen(session: DashboardSession) {
  const { api } = session;
  const { resource, reload } = useResource(async () => {
    const [status, plans] = await Promise.all([api.subscription(), api.plans()]);
    return { status, plans };
  }, [api]);
  const data = dataOf(resource);
  const plans = data?.plans ?? [];
  const cursor = useCursor(plans.length, 1);

  /** A confirmed change: the API call, then the new status is shown and said. */
  const change = (title: string, lines: string[], confirmLabel: string, call: () => Promise<Subscription>, said: string) =>
    confirmModal({
      title,
      lines,
      confirmLabel,
      async run() {
        await call();
        await reload();
        session.flash('info', said);
      },
    });

  // Closing a checkout or the portal reloads the status: what was paid or changed there shows at once.
  const link = (title: string, url: string, lines: string[], checkoutId?: string): LinkModal => ({
    kind: 'link',
    title,
    url,
    lines,
    refresh: () => void reload(),
    ...(checkoutId ? { checkoutId } : {}),
  });

  const choose = (status: Subscription, plan: Plan): Modal | null => {
    const name = planName(plan);
    const price = `${usd(plan.price_usd)}/${plan.interval}`;
    switch (planChange(status, plan)) {
      case 'current':
        session.flash('info', `${name} is your plan already.`);
        return null;
      case 'checkout':
        return confirmModal({
          title: `Subscribe to ${name} (${price})?`,
          lines: ['This opens a checkout session; you pay in the browser.'],
          confirmLabel: 'go to checkout',
          run: async () => {
            const checkout = await api.checkout(plan);
            return link(`Checkout for ${name}`, checkout.url, ['The subscription starts once the payment is confirmed.', 'This closes by itself when the payment lands.'], checkout.id);
          },
        });
      case 'upgrade':
        return change(
          `Upgrade to ${name} (${price}) now?`,
          ['The rest of this period is charged at the new price (prorated), and the new credits apply at once.'],
          'upgrade',
          () => api.upgrade({ tier: plan.tier, interval: plan.interval }),
          `Upgraded to ${name}.`,
        );
      case 'downgrade':
        return change(
          `Downgrade to ${name} (${price}) on ${periodEnd(status)}?`,
          ['You keep the current plan until the end of this period; u withdraws the downgrade before then.'],
          'schedule it',
          () => api.scheduleDowngrade({ tier: plan.tier, interval: plan.interval }),
          `${name} from ${periodEnd(status)}.`,
        );
    }
  };

  const handle = (action: ScreenAction<'subscription'>) => {
    if (action === 'left' || action === 'up') return void cursor.move('up');
    if (action === 'right' || action === 'down') return void cursor.move('down');
    if (cursor.move(action)) return;
    if (action === 'refresh') return void reload();
    if (action === 'portal') {
      return void session.act('Opening a customer portal session…', async () =>
        link('Customer portal', (await api.portal()).url, ['Invoices, payment methods and billing details.']),
      );
    }
    if (!data) return;
    const { status } = data;
    const plan = plans[cursor.current()];
    let modal: Modal | null = null;
    if (action === 'select' && plan) modal = choose(status, plan);
    else if (action === 'cancel') {
      if (status.status !== 'active' || status.cancel_at_period_end) return session.flash('info', 'There is no running subscription to cancel.');
      modal = change(
        'Cancel the subscription?',
        [`It stays active until ${periodEnd(status)} and then ends; n renews it before then.`],
        'cancel it',
        () => api.cancel(),
        `The subscription ends on ${periodEnd(status)}.`,
      );
    } else if (action === 'renew') {
      if (status.status === 'none') return session.flash('info', 'There is no subscription to renew: pick a plan and press Enter.');
      if (status.status === 'active' && !status.cancel_at_period_end) return session.flash('info', 'The subscription is not cancelled: nothing to renew.');
      modal = change(
        'Renew the subscription?',
        [status.status === 'canceled' ? 'It starts again now, on the plan it had.' : 'The pending cancel is lifted; it goes on after this period.'],
        'renew it',
        () => api.renew(),
        'The subscription goes on.',
      );
    } else if (action === 'keepPlan') {
      const downgrade = status.scheduled_downgrade;
      if (!downgrade) return session.flash('info', 'No downgrade is scheduled.');
      modal = change(
        `Withdraw the downgrade to ${planName(downgrade)}?`,
        ['The current plan goes on after this period.'],
        'withdraw it',
        () => api.cancelScheduledDowngrade(),
        'The scheduled downgrade is withdrawn.',
      );
    }
    if (modal) session.openModal(modal);
  };

  return { resource, plans, cursor, handle, selected: () => plans[cursor.current()] };
}
