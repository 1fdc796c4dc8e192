import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, forbidden, unauthorized } from '../errors.js';

/** Where Prometheus scrapes: at the root, as exporters serve it, not under /api/v1. */
export const METRICS_PATH = '/metrics';

export const isMetricsPath = (url: string | undefined) => url === METRICS_PATH || url?.startsWith(`${METRICS_PATH}?`) === true;

/** 127.0.0.0/8 and ::1, also written IPv4-mapped (a dual-stack socket's way). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * The headers a proxy marks what it passes on with (RFC 7239 and 7230, the X-Forwarded-* family,
 * the client-address headers of nginx, CDNs and load balancers). A loopback request carrying any
 * of them came through a same-host proxy, so from somewhere else: it is not this host's.
 */
const FORWARDING_HEADER = /^(forwarded|via|x-forwarded-[a-z-]+|x-real-ip|x-client-ip|true-client-ip|cf-connecting-ip|fastly-client-ip|x-cluster-client-ip|x-original-forwarded-for)$/;

/**
 * Whether the Host a request names is this host by a loopback name (`localhost`) or address, any
 * port. A page whose own name was rebound to 127.0.0.1 (DNS rebinding) sends its name: a browser
 * on this host would otherwise fetch /metrics from loopback for it, as its own origin, and read it.
 * No Host at all (an HTTP/1.0 tool) is not a browser's request.
 */
export function namesLoopback(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '')).toLowerCase();
  return name === 'localhost' || isLoopback(name);
}

/** The first forwarding header of the request (node lower-cases their names), if any. */
const forwardingHeader = (req: IncomingMessage) => Object.keys(req.headers).find((name) => FORWARDING_HEADER.test(name));

// Both sides hashed: equal lengths for timingSafeEqual, and the token's length does not leak.
const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Who may scrape: with `SVC_METRICS_TOKEN` set, whoever sends it as `Authorization: Bearer`;
 * without, only this host (loopback, and not passed on by a proxy). Throws the API's 401/403.
 */
export function checkScraper(req: IncomingMessage, token: string | undefined): void {
  if (token) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) throw new ApiError(401, 'authentication_error', 'GET /metrics needs Authorization: Bearer <SVC_METRICS_TOKEN>.', 'missing_credentials', null, { 'www-authenticate': 'Bearer' });
    if (!timingSafeEqual(digest(match[1] as string), digest(token))) {
      throw unauthorized('The bearer token is not the server’s SVC_METRICS_TOKEN.');
    }
    return;
  }
  const forwarded = forwardingHeader(req);
  const why = !isLoopback(req.socket.remoteAddress)
    ? 'came from another address'
    : forwarded
      ? `was forwarded (${forwarded})`
      : !namesLoopback(req.headers.host)
        ? `names the host ${JSON.stringify(req.headers.host)}, not localhost or a loopback address`
        : null;
  if (why) {
    throw forbidden(
      `GET /metrics is served only to this host while SVC_METRICS_TOKEN is not set (this request ${why}). Set SVC_METRICS_TOKEN to scrape from elsewhere.`,
      'metrics_loopback_only',
    );
  }
}

/** `GET /metrics`: the Prometheus text exposition, to an operator only. */
export function metricsEndpoint(deps: { token: string | undefined; scrape: () => Promise<{ contentType: string; body: string }> }) {
  return async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${METRICS_PATH}; use GET.`, 'method_not_allowed', null, { allow: 'GET' });
    }
    checkScraper(req, deps.token);
    const { contentType, body } = await deps.scrape();
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    res.end(method === 'HEAD' ? undefined : body);
  };
}
