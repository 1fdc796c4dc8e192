import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of a fake upstream that, once `shut()`, keeps every request waiting until
 * `open()`: so that every request of a burst is admitted or refused by svc before any of them is
 * settled, as when a real upstream takes seconds to answer. Open at first.
 */
export async function startGatedProxy(target: string) {
  const targetUrl = new URL(target);
  let isOpen = true;
  let started = 0;
  const waiting: (() => void)[] = [];
  const listeners: (() => void)[] = [];
  const server = createServer((req, res) => {
    started += 1;
    listeners.forEach((listener) => listener());
    const forward = () => {
      const upstream = httpRequest(
        { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: { ...req.headers, host: targetUrl.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (isOpen) forward();
    else waiting.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The proxy's base URL: the target's path on the proxy's origin. */
    url: `http://127.0.0.1:${port}${targetUrl.pathname.replace(/\/$/, '')}`,
    started: () => started,
    onStart(listener: () => void) {
      listeners.push(listener);
    },
    shut() {
      isOpen = false;
    },
    open() {
      isOpen = true;
      waiting.splice(0).forEach((forward) => forward());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type GatedProxy = Awaited<ReturnType<typeof startGatedProxy>>;
