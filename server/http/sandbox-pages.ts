import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import type { Services } from '../services/index.js';
import { sendError } from './respond.js';

const PAGE = /^\/sandbox\/checkout\/(cs_[0-9a-f]{32})(?:\/(pay|cancel))?$/;

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

/**
 * The sandbox payment processor's pages: the checkout page (GET) with Pay and Cancel, and the two
 * actions (POST …/pay, POST …/cancel), which end at the session's success or cancel URL. The
 * session id is the capability, as a processor's checkout link is. Returns false for other paths.
 */
export async function handleSandboxPage(req: IncomingMessage, res: ServerResponse, services: Services): Promise<boolean> {
  const match = PAGE.exec(new URL(req.url ?? '/', 'http://placeholder').pathname);
  if (!match) return false;
  const [, id = '', action] = match;
  const method = req.method ?? 'GET';
  try {
    if (!action && method === 'GET') {
      const session = await services.payments.session(id);
      const open = session.status === 'open';
      page(
        res,
        200,
        'Sandbox checkout',
        `<p>${escape(session.description)}</p><p><strong>$${(session.amountUsdCents / 100).toFixed(2)}</strong> — no real money moves.</p>` +
          (open
            ? `<form method="post" action="${id}/pay" style="display:inline"><button>Pay</button></form>` +
              `<form method="post" action="${id}/cancel" style="display:inline"><button>Cancel</button></form>`
            : `<p>This session is ${session.status === 'complete' ? 'paid' : 'closed'}.</p>`),
      );
    } else if (action && method === 'POST') {
      const session = action === 'pay' ? await services.payments.pay(id) : await services.payments.cancel(id);
      const to = action === 'pay' ? session.successUrl : session.cancelUrl;
      if (to) redirect(res, to);
      else page(res, 200, action === 'pay' ? 'Paid' : 'Cancelled', `<p>${escape(session.description)}</p>`);
    } else {
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed here.`, 'method_not_allowed', null, { allow: action ? 'POST' : 'GET' });
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    sendError(res, error);
  }
  return true;
}
