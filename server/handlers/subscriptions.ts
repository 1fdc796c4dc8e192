import type { HandlerTable } from './types.js';

export const subscriptionsHandlers: HandlerTable = {
  'subscriptions.webhook': async ({ services, request }) => {
    const signature = request.headers['stripe-signature'];
    return services.webhook(request.rawBody, typeof signature === 'string' ? signature : undefined);
  },

  'subscriptions.plans': async ({ principal, services }) => services.subscriptions.plans(principal),
  'subscriptions.status': async ({ principal, services }) => services.subscriptions.status(principal),
  'subscriptions.create-checkout-session': async ({ principal, body, services, request }) =>
    services.subscriptions.checkout(principal, body, request.origin),
  'subscriptions.customer-portal': async ({ principal, body, services, request }) =>
    services.subscriptions.portal(principal, body, request.origin),
  'subscriptions.upgrade': async ({ principal, body, services }) => services.subscriptions.upgrade(principal, body),
  'subscriptions.schedule-downgrade': async ({ principal, body, services }) => services.subscriptions.scheduleDowngrade(principal, body),
  'subscriptions.cancel-scheduled-downgrade': async ({ principal, services }) => services.subscriptions.cancelScheduledDowngrade(principal),
  'subscriptions.cancel': async ({ principal, services }) => services.subscriptions.cancel(principal),
  'subscriptions.renew': async ({ principal, services, request }) => services.subscriptions.renew(principal, request.origin),
};
