import { ensureOk } from './platform';

/** A signed-in user: the identity token the platform accepts, and the wallet it stands for. */
export interface Session {
  token: string;
  address: string;
  expiresAt: Date;
}

const IDP_APP_ID = import.meta.env.VITE_IDP_APP_ID ?? '';

/** No real identity provider yet (no app ID, or a sandbox_ one): users sign in through the platform's sandbox. */
export const usesSandbox = IDP_APP_ID === '' || IDP_APP_ID.startsWith('sandbox_');

/** A test wallet, from the dev server's sandbox endpoint (dev/sandbox-sign-in.ts). */
async function sandboxSignIn(): Promise<Session> {
  const response = await ensureOk(await fetch('/dev/sandbox-sign-in', { method: 'POST' }));
  const body = (await response.json()) as { token: string; address: string; expires_at: string };
  return { token: body.token, address: body.address, expiresAt: new Date(body.expires_at) };
}

/**
 * Sign-in through your identity provider (app VITE_IDP_APP_ID): call its SDK here and return the
 * identity token it gives the signed-in user. The platform verifies the token with the key set
 * by `svc api developer apps idp create`, and reads the user's wallet from the token, so the
 * provider must put user data (linked accounts) inside it.
 */
function providerSignIn(): Promise<Session> {
  return Promise.reject(
    new Error(`Sign-in with identity provider app ${IDP_APP_ID} is not connected yet: call its SDK in src/identity.ts.`),
  );
}

export function signIn(): Promise<Session> {
  return usesSandbox ? sandboxSignIn() : providerSignIn();
}
