import { createHash, randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { isSandboxIdp, SANDBOX_APP_CLAIM, SANDBOX_ISSUER } from '../auth/identity-tokens.js';
import { conflict } from '../errors.js';
import { SIGNING_ALGORITHM } from '../services/signing-keys.js';
import type { HandlerTable } from './types.js';

/** The test wallet an app's sandbox tokens stand for unless another is asked: fixed per app. */
export function sandboxWalletOf(appUuid: string): string {
  return `0x${createHash('sha256').update(`svc-sandbox-wallet:${appUuid}`).digest('hex').slice(0, 40)}`;
}

export const sandboxHandlers: HandlerTable = {
  /** The built-in identity provider (ARCHITECTURE.md §5): tokens for test wallets, signed with the server's key. */
  'sandbox.identity-token': async ({ principal, body, services }) => {
    // Only test keys reach here (the contract's liveKeys: false): a live key cannot mint sign-ins.
    const { app } = principal;
    if (!isSandboxIdp(app.idpAppId)) {
      throw conflict(
        `App ${app.appUuid} does not use the sandbox identity provider` +
          (app.idpAppId ? ` (its idp_app_id is '${app.idpAppId}')` : '') +
          ". Give it an idp_app_id starting 'sandbox_': svc api developer apps idp create " +
          `${app.appUuid} --idp-app-id sandbox_<name> --idp-verification-key <any P-256 public key PEM> ` +
          '(for sandbox ids the key is required by the format but ignored).',
        'sandbox_idp_required',
      );
    }
    const address = body.address ?? sandboxWalletOf(app.appUuid);
    const signing = await services.signingKeys.current();
    const now = Math.floor(services.clock.now().getTime() / 1000);
    const exp = now + body.expires_in;
    const token = await new SignJWT({
      linked_accounts: JSON.stringify([{ type: 'wallet', address }]),
      // Every sandbox app verifies with this server's key: the claim says which app signed in.
      [SANDBOX_APP_CLAIM]: app.appUuid,
    })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'JWT', kid: signing.kid })
      .setIssuer(SANDBOX_ISSUER)
      .setAudience(app.idpAppId)
      .setSubject(`did:svc:${randomUUID()}`)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(await importJWK(signing.privateJwk, SIGNING_ALGORITHM));
    return {
      token,
      address,
      expires_at: new Date(exp * 1000).toISOString(),
      issuer: SANDBOX_ISSUER,
      audience: app.idpAppId,
    };
  },
};
