import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { sandboxCards } from '../payments/sandbox-cards.js';
import type { Services } from '../services/index.js';
import { readBody } from './body.js';
import { sendError } from './respond.js';

const CHECKOUT = /^\/sandbox\/checkout\/(cs_[0-9a-f]{32})(?:\/(pay|cancel))?$/;
const PORTAL = /^\/sandbox\/portal\/(bps_[0-9a-f]{32})(?:\/(cancel|renew|card))?$/;
/** A card form's body: one short field. */
const CARD_FORM_LIMIT_BYTES = 1024;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}</style>
</head><body><h1>${escape(title)}</h1>${body}</body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function redirect(res: ServerResponse, to: string): void {
  res.writeHead(303, { location: to });
  res.end();
}

const button = (action: string, label: string) =>
  `<form method="post" action="${action}" style="display:inline"><button>${label}</button></form>`;

function notAllowed(method: string, action: string | undefined): ApiError {
  return new ApiError(405, 'method_not_allowed', `${method} is not allowed here.`, 'method_not_allowed', null, { allow: action ? 'POST' : 'GET' });
}

/** The portal's card form: the customer's later payments go to the card given (one of the test cards). */
const cardForm = (id: string) =>
  `<form method="post" action="${id}/card"><p><label>Card number <input name="card" value="4242 4242 4242 4242"></label> ` +
  `<button>Use this card</button></p></form><ul>${sandboxCards()
    .map((card) => `<li>${escape(card.number)}: ${escape(card.says)}</li>`)
    .join('')}</ul>`;

/**
 * The customer portal: the subscription with Cancel (at the period end) or Renew, and the card it
 * is paid with. Renewing after the end goes through a new checkout, as it does through the API.
 */
async function portal(req: IncomingMessage, res: ServerResponse, services: Services, id: string, action: string | undefined) {
  const method = req.method ?? 'GET';
  if (!action && method === 'GET') {
    const { status } = await services.subscriptions.portalSession(id);
    const plan = `${status.tier} (${status.interval})`;
    const state =
      status.status !== 'active'
        ? `<p>Your ${escape(plan)} subscription ended on ${escape(status.current_period_end ?? '')}.</p>${button(`${id}/renew`, 'Subscribe again')}`
        : status.cancel_at_period_end
          ? `<p>Your ${escape(plan)} subscription ends on ${escape(status.current_period_end ?? '')}.</p>${button(`${id}/renew`, 'Renew')}`
          : `<p>Your ${escape(plan)} subscription renews on ${escape(status.current_period_end ?? '')}.</p>${button(`${id}/cancel`, 'Cancel at the period end')}`;
    page(res, 200, 'Sandbox customer portal', state + cardForm(id));
  } else if (action === 'card' && method === 'POST') {
    const form = new URLSearchParams((await readBody(req, CARD_FORM_LIMIT_BYTES)).toString('utf8'));
    const result = await services.subscriptions.portalCard(id, form.get('card') ?? '');
    if (result.returnUrl) redirect(res, result.returnUrl);
    else page(res, 200, 'Card updated', `<p>Your ${escape(`${result.tier} (${result.interval})`)} subscription is paid with this card from now on.</p>`);
  } else if (action && method === 'POST') {
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    const result = await services.subscriptions.portalAction(id, action as 'cancel' | 'renew', origin);
    if (result.checkout_session) redirect(res, result.checkout_session.url);
    else if (result.returnUrl) redirect(res, result.returnUrl);
    else page(res, 200, action === 'cancel' ? 'Canceled' : 'Renewed', `<p>Your ${escape(`${result.tier} (${result.interval})`)} subscription is updated.</p>`);
  } else {
    throw notAllowed(method, action);
  }
}

/**
 * The sandbox payment processor's pages: the checkout page (GET) with Pay and Cancel, and the two
 * actions (POST …/pay, POST …/cancel), which end at the session's success or cancel URL; and the
 * customer portal. The id in the path is the capability, as a processor's link is. Returns false
 * for other paths.
 */
export const isSandboxPage = (url: string | undefined) => url?.startsWith('/sandbox/') ?? false;

export async function handleSandboxPage(req: IncomingMessage, res: ServerResponse, services: Services): Promise<boolean> {
  const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
  const portalMatch = PORTAL.exec(path);
  const match = CHECKOUT.exec(path);
  if (!match && !portalMatch) return false;
  const method = req.method ?? 'GET';
  try {
    if (portalMatch) return await portal(req, res, services, portalMatch[1] ?? '', portalMatch[2]).then(() => true);
    const [, id = '', action] = match as RegExpExecArray;
    if (!action && method === 'GET') {
      const session = await services.payments.session(id);
      const open = session.status === 'open';
      page(
        res,
        200,
        'Sandbox checkout',
        `<p>${escape(session.description)}</p><p><strong>$${(session.amountUsdCents / 100).toFixed(2)}</strong> — no real money moves.</p>` +
          (open
            ? button(`${id}/pay`, 'Pay') + button(`${id}/cancel`, 'Cancel')
            : `<p>This session is ${session.status === 'complete' ? 'paid' : 'closed'}.</p>`),
      );
    } else if (action && method === 'POST') {
      const session = action === 'pay' ? await services.payments.pay(id) : await services.payments.cancel(id);
      const to = action === 'pay' ? session.successUrl : session.cancelUrl;
      if (to) redirect(res, to);
      else page(res, 200, action === 'pay' ? 'Paid' : 'Cancelled', `<p>${escape(session.description)}</p>`);
    } else {
      throw notAllowed(method, action);
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    sendError(res, error);
  }
  return true;
}
