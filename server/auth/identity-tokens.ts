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
import { ApiError, insufficientCredits, unauthorized } from '../errors.js';
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

/**
 * The one answer for a token that names no app we know, or whose signature no app's key verifies:
 * a stranger learns nothing about which apps exist or how they are configured.
 */
const unverifiable = () => unauthorized('The identity token is not valid.', 'invalid_identity_token');

/**
 * The header an end user's client sends to name its app when one identity-provider id serves
 * several; without it, a token goes to the app that took the id first.
 */
export const APP_HEADER = 'x-svc-app';

/** The claim a sandbox token carries its app in (every sandbox app verifies with the same server key). */
export const SANDBOX_APP_CLAIM = 'svc_app';

/** The token's claims, unverified (to find its app), or null when it is not a JWT. */
function claimsOf(token: string): JWTPayload | null {
  try {
    return decodeJwt(token);
  } catch {
    return null;
  }
}

/** The claims' audience as one string (the identity-provider app id), or null. */
function audienceOf(payload: JWTPayload): string | null {
  const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
  return typeof audience === 'string' && audience.length > 0 ? audience : null;
}

/**
 * What jose refused, in words a client developer can act on — but only for claims, which jose
 * checks after the signature verified: the caller then holds a real token of this app. Anything
 * before that (bad signature, wrong key, malformed) is `unverifiable`.
 */
function explain(error: unknown, issuer: string): ApiError {
  if (error instanceof errors.JWTExpired) return invalidToken(`it expired (exp ${String(error.payload.exp)}).`);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return invalidToken(`it is not valid yet (nbf ${String(error.payload.nbf)}).`);
    if (error.claim === 'iss') return invalidToken(`its issuer must be '${issuer}'.`);
    if (error.claim === 'typ') return invalidToken("its header must say typ 'JWT'.");
    return invalidToken(`claim '${error.claim}' ${error.reason === 'missing' ? 'is missing' : 'is wrong'}.`);
  }
  if (error instanceof errors.JOSEError) return unverifiable();
  throw error;
}

/** A wallet address as the API writes it: 0x and 40 lower-case hex digits. */
const WALLET = /^0x[0-9a-f]{40}$/;

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
    const address = account ? (account as { address: string }).address.toLowerCase() : null;
    // A token's wallet names a user like the path parameter does: anything else is no wallet.
    return address !== null && WALLET.test(address) ? address : null;
  };
  return addressOf('wallet') ?? addressOf('smart_wallet');
}

/**
 * Identity tokens (ARCHITECTURE.md §5): a JWT from the app's identity provider, ES256, checked with the
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
  // configuration replaces the entry (at most one entry per app).
  const keys = new Map<string, { pem: string; key: Promise<CryptoKey> }>();
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

  /** How the app's tokens verify: the key and the issuer. */
  async function verifierOf(app: AppRecord & { idpVerificationKey: string; idpAppId: string }) {
    if (isSandboxIdp(app.idpAppId)) {
      return { key: await sandboxKeySet(), issuer: SANDBOX_ISSUER };
    }
    return { key: (() => keyOf(app)) satisfies JWTVerifyGetKey, issuer: deps.issuer };
  }

  type ConfiguredApp = AppRecord & { idpVerificationKey: string; idpAppId: string };

  /**
   * The one app a token is checked against, among those with its audience as identity-provider id
   * (one per developer): a sandbox token's own app (its claim), else the app the client names in
   * the header, else the app that took the id first. So an app configured later with the same id
   * and key is reached only by naming it, and never changes where another app's tokens land; nor
   * does a token its senior refuses (say, signed with a key the senior has since replaced) fall
   * through to a copy.
   */
  async function appFor(payload: JWTPayload, audience: string, appHeader: string | undefined): Promise<ConfiguredApp | undefined> {
    // Listed in the order they took the id, earliest first.
    let holders = (await deps.store.apps.findByIdpAppId(audience)).filter(
      (app): app is ConfiguredApp => app.idpVerificationKey !== null && app.idpAppId !== null,
    );
    if (isSandboxIdp(audience)) holders = holders.filter((app) => app.appUuid === payload[SANDBOX_APP_CLAIM]);
    if (appHeader !== undefined) holders = holders.filter((app) => app.appUuid === appHeader.toLowerCase());
    return holders[0];
  }

  /** The token's verified claims for this app; 401 saying why the app refuses it. */
  async function verifiedClaims(token: string, app: ConfiguredApp): Promise<JWTPayload> {
    const verifier = await verifierOf(app);
    try {
      const { payload } = await jwtVerify(token, verifier.key, {
        algorithms: ['ES256'],
        typ: 'JWT',
        issuer: verifier.issuer,
        audience: app.idpAppId,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: deps.clock.now(),
      });
      return payload;
    } catch (error) {
      throw explain(error, verifier.issuer);
    }
  }

  /** The user a token stands for; throws 401 for any token that does not verify. */
  async function verify(token: string, appHeader?: string): Promise<{ app: AppRecord; address: string; sandbox: boolean }> {
    const claims = claimsOf(token);
    const audience = claims && audienceOf(claims);
    if (!claims || !audience) throw unverifiable();
    const app = await appFor(claims, audience, appHeader);
    if (!app) throw unverifiable();
    const address = walletOf(await verifiedClaims(token, app));
    if (!address) {
      throw invalidToken("its linked_accounts hold no 'wallet' or 'smart_wallet' account with a 0x address; the user needs a wallet.");
    }
    return { app, address, sandbox: isSandboxIdp(app.idpAppId) };
  }

  return {
    verify,

    /** Verifies the token and makes sure its user exists (402 when the app cannot fund them). */
    async authenticate(token: string, appHeader?: string): Promise<Principal> {
      const { app, address, sandbox } = await verify(token, appHeader);
      try {
        // A sandbox token signs in a test-mode user: a user of its own, apart from any live one.
        await deps.store.users.ensure({ appUuid: app.appUuid, livemode: !sandbox }, address, deps.clock.now().toISOString());
      } catch (error) {
        if (!(error instanceof InsufficientFundsError)) throw error;
        throw insufficientCredits(
          `App ${app.appUuid} cannot give a new user its default ${microToCredits(error.neededMicro)} credits: ` +
            `its balance is ${microToCredits(error.availableMicro)} credits. The developer must fund the app.`,
        );
      }
      return { kind: 'user', developerId: app.developerId, app, address, livemode: !sandbox };
    },
  };
}

export type IdentityTokenVerifier = ReturnType<typeof createIdentityTokenVerifier>;
