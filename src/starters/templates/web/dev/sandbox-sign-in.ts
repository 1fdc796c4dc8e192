import type { ServerResponse } from 'node:http';
import type { Plugin } from 'vite';

interface Options {
  /** The platform's API. */
  apiUrl: string;
  /** A test key (svc_test_…) of the app: the platform issues sandbox tokens only to test keys. */
  testKey: string | undefined;
}

/** Where the browser asks for a sandbox sign-in (src/identity.ts). */
const PATH = '/dev/sandbox-sign-in';

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
}

/** Fetches a sandbox identity token for the app's test wallet, and hands the platform's answer on. */
async function signIn(res: ServerResponse, { apiUrl, testKey }: Options): Promise<void> {
  if (!testKey?.startsWith('svc_test_')) {
    return fail(res, 500, 'Set SVC_TEST_KEY in .env to a test key (svc_test_…) of your app, then restart `npm run dev`.');
  }
  let upstream: Response;
  try {
    upstream = await fetch(`${apiUrl}/sandbox/identity-token`, {
      method: 'POST',
      headers: { 'x-api-key': testKey, 'content-type': 'application/json' },
      body: '{}',
    });
  } catch {
    return fail(res, 502, `No platform answered at ${apiUrl}. Start one with \`svc serve\`, or set VITE_SVC_API_URL.`);
  }
  // As is: the token, or the platform's error, whose message says what to fix.
  res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
}

/**
 * Sandbox sign-in for development, without a real identity provider. The dev server asks the
 * platform's sandbox identity provider for a token with the app's test key, so the key stays on
 * this machine and the browser only ever holds the user's identity token. Only `vite` dev has
 * this endpoint; a production build signs users in through the real provider.
 */
export function sandboxSignIn(options: Options): Plugin {
  return {
    name: 'svc-sandbox-sign-in',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use(PATH, (req, res) => {
        if (req.method !== 'POST') return fail(res, 405, 'Use POST.');
        void signIn(res, options);
      });
    },
  };
}
