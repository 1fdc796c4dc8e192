import {
  createLocalJWKSet,
  decodeJwt,
  errors,
  importSPKI,
  jwtVerify,
  type CryptoKey,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { SANDBOX_IDP_PREFIX } from '../../src/contract/schemas/surface.js';
import type { Clock } from '../clock.js';
import { insufficientCredits, unauthorized } from '../errors.js';
import { microToCredits } from '../store/money.js';
import { InsufficientFundsError, type AppRecord, type Store } from '../store/types.js';
import type { Principal } from './principal.js';

/** Clock skew allowed on `exp` and `nbf`, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The `iss` of the tokens the built-in sandbox identity provider issues (POST /sandbox/identity-token).
 * Distinct from any real provider's, so a sandbox token never passes as a real one, nor the reverse.
 */
export const SANDBOX_ISSUER = 'svc-sandbox';

/** An app whose `idp_app_id` starts `sandbox_` uses the built-in sandbox identity provider. */
export const isSandboxIdp = (idpAppId: string | null): idpAppId is string =>
  idpAppId?.startsWith(SANDBOX_IDP_PREFIX) ?? false;

const invalidToken = (message: string) => unauthorized(`The identity token is not valid: ${message}`, 'invalid_identity_token');

/** The claims' audience as one string (the identity-provider app id), or null. */
function audienceOf(token: string): string | null {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(token);
  } catch {
    return null;
  }
  const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
  return typeof audience === 'string' && audience.length > 0 ? audience : null;
}

/** What jose refused, in words a client developer can act on. */
function explain(error: unknown, app: AppRecord, issuer: string, keys: string): Error {
  if (error instanceof errors.JWTExpired) return invalidToken(`it expired (exp ${String(error.payload.exp)}).`);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return invalidToken(`it is not valid yet (nbf ${String(error.payload.nbf)}).`);
    if (error.claim === 'iss') return invalidToken(`its issuer must be '${issuer}'.`);
    if (error.claim === 'typ') return invalidToken("its header must say typ 'JWT'.");
    return invalidToken(`claim '${error.claim}' ${error.reason === 'missing' ? 'is missing' : 'is wrong'}.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return invalidToken('it must be signed with ES256.');
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return invalidToken(`its signature does not verify with ${keys} of app ${app.appUuid}.`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) return invalidToken(`it is not signed by ${keys} of app ${app.appUuid}.`);
  if (error instanceof errors.JOSEError) return invalidToken(`it is malformed (${error.message}).`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The user's wallet: `linked_accounts` is a JSON string holding the user's accounts; the first
 * `wallet`, else the first `smart_wallet`, lowercased.
 */
export function walletOf(payload: JWTPayload): string | null {
  let accounts: unknown = payload.linked_accounts;
  if (typeof accounts === 'string') {
    try {
      accounts = JSON.parse(accounts);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(accounts)) return null;
  const addressOf = (type: string) => {
    const account: unknown = accounts.find(
      (entry: unknown) =>
        typeof entry === 'object' && entry !== null && (entry as { type?: unknown }).type === type &&
        typeof (entry as { address?: unknown }).address === 'string' && (entry as { address: string }).address.length > 0,
    );
    return account ? (account as { address: string }).address.toLowerCase() : null;
  };
  return addressOf('wallet') ?? addressOf('smart_wallet');
}

/**
 * Identity tokens (DESIGN §5): a JWT from the app's identity provider, ES256, checked with the
 * app whose `idp_app_id` is the token's audience. The user is the token's wallet, created on first
 * sight with the app's default credits. An app with a `sandbox_` id verifies instead against the
 * server's own signing keys and the sandbox issuer (its configured PEM is ignored).
 */
export interface IdentityTokenVerifierDeps {
  store: Store;
  clock: Clock;
  issuer: string;
  /** The server's public signing keys (the sandbox identity provider's). */
  signingKeys: { jwks(): Promise<JSONWebKeySet> };
}

export function createIdentityTokenVerifier(deps: IdentityTokenVerifierDeps) {
  // App → its imported verification key. The PEM is compared on every use, so a changed
  // configuration replaces the entry; a deleted one is dropped when its audience is next seen.
  const keys = new Map<string, { pem: string; key: Promise<CryptoKey> }>();
  const audiences = new Map<string, string>();
  let sandboxKeys: Promise<JWTVerifyGetKey> | undefined;

  function keyOf(app: AppRecord & { idpVerificationKey: string }): Promise<CryptoKey> {
    const cached = keys.get(app.appUuid);
    if (cached?.pem === app.idpVerificationKey) return cached.key;
    const key = importSPKI(app.idpVerificationKey, 'ES256');
    keys.set(app.appUuid, { pem: app.idpVerificationKey, key });
    return key;
  }

  /** The sandbox provider's key set: the server's published keys, which never change while it runs. */
  function sandboxKeySet(): Promise<JWTVerifyGetKey> {
    sandboxKeys ??= deps.signingKeys.jwks().then(
      (set) => createLocalJWKSet(set),
      (error: unknown) => {
        sandboxKeys = undefined;
        throw error;
      },
    );
    return sandboxKeys;
  }

  /** How the app's tokens verify: the key, the issuer, and how the key is named in errors. */
  async function verifierOf(app: AppRecord & { idpVerificationKey: string; idpAppId: string }) {
    if (isSandboxIdp(app.idpAppId)) {
      return { key: await sandboxKeySet(), issuer: SANDBOX_ISSUER, keys: "the server's signing keys (sandbox identity provider)" };
    }
    return { key: (() => keyOf(app)) satisfies JWTVerifyGetKey, issuer: deps.issuer, keys: 'the idp_verification_key' };
  }

  async function appFor(audience: string) {
    const app = await deps.store.apps.findByIdpAppId(audience);
    if (!app?.idpVerificationKey) {
      const previous = audiences.get(audience);
      if (previous !== undefined) keys.delete(previous);
      audiences.delete(audience);
      throw invalidToken(
        `no app has identity-provider configuration for audience '${audience}' (set it with the app's idp create operation).`,
      );
    }
    audiences.set(audience, app.appUuid);
    return app as AppRecord & { idpVerificationKey: string; idpAppId: string };
  }

  /** The user a token stands for; throws 401 for any token that does not verify. */
  async function verify(token: string): Promise<{ app: AppRecord; address: string; sandbox: boolean }> {
    const audience = audienceOf(token);
    if (!audience) throw invalidToken('it is not a JWT with an audience (aud) claim.');
    const app = await appFor(audience);
    const verifier = await verifierOf(app);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, verifier.key, {
        algorithms: ['ES256'],
        typ: 'JWT',
        issuer: verifier.issuer,
        audience: app.idpAppId,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: deps.clock.now(),
      }));
    } catch (error) {
      throw explain(error, app, verifier.issuer, verifier.keys);
    }
    const address = walletOf(payload);
    if (!address) {
      throw invalidToken("its linked_accounts hold no 'wallet' or 'smart_wallet' account; the user needs a wallet.");
    }
    return { app, address, sandbox: isSandboxIdp(app.idpAppId) };
  }

  return {
    verify,

    /** Verifies the token and makes sure its user exists (402 when the app cannot fund them). */
    async authenticate(token: string): Promise<Principal> {
      const { app, address, sandbox } = await verify(token);
      try {
        await deps.store.users.ensure(app.appUuid, address, deps.clock.now().toISOString());
      } catch (error) {
        if (!(error instanceof InsufficientFundsError)) throw error;
        throw insufficientCredits(
          `App ${app.appUuid} cannot give a new user its default ${microToCredits(error.neededMicro)} credits: ` +
            `its balance is ${microToCredits(error.availableMicro)} credits. The developer must fund the app.`,
        );
      }
      return { kind: 'user', developerId: app.developerId, app, address, sandbox };
    },
  };
}

export type IdentityTokenVerifier = ReturnType<typeof createIdentityTokenVerifier>;
