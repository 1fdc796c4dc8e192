import type { KeyRole } from '../../../src/contract/operation.js';

// The store's records of developers, apps, keys, users, signing keys and text registrations, and what creates or changes them.

export interface Page {
  limit: number;
  offset: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
}

export type AppType = 'standard' | 'pooled_api';

/**
 * Where a mode-bearing object lives: its app, and live or test mode (Stripe's livemode). Every
 * object a key or a user can reach (responses, text registrations, app users, billing lines,
 * subscriptions) is stored with its mode and read and written with the caller's as part of its
 * key, so test mode never sees a live object, nor live mode a test one: to the other mode it does
 * not exist.
 */
export interface AppScope {
  appUuid: string;
  livemode: boolean;
}

export interface DeveloperRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface AppRecord {
  appUuid: string;
  developerId: string;
  name: string;
  appType: AppType;
  defaultUserCreditsMicro: number;
  allowedOrigins: string[];
  idpAppId: string | null;
  idpVerificationKey: string | null;
  idpUpdatedAt: string | null;
  /** Per-app overrides of the server's rate limits (null: the server default). */
  rateLimitRpm: number | null;
  rateLimitTpm: number | null;
  /** Whether the app pays its users' daily claims and task rewards (the app is their sponsor). */
  userClaims: boolean;
  /** The budget each end user gets unless their own overrides it (null: none). */
  userBudget: BudgetLimit | null;
  balanceMicro: number;
  heldMicro: number;
  createdAt: string;
  updatedAt: string;
}

/** A spending budget: at most `limitMicro` per `period` (server/services/budgets.ts). */
export interface BudgetLimit {
  limitMicro: number;
  period: string;
}

export interface ApiKeyRecord {
  keyId: string;
  appUuid: string;
  name: string;
  isTest: boolean;
  role: KeyRole;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** What the key may spend per window, and what it has settled in the window it last spent in. */
  budget: KeyBudget | null;
  /** RFC 3339; from this instant on the key is refused. */
  expiresAt: string | null;
}

export interface KeyBudget {
  limitMicro: number;
  /** `day`, `week`, `month` or a duration (`7d`): see server/services/budgets.ts. */
  period: string;
  windowStart: string | null;
  spentMicro: number;
}

/** What a key update changes: an omitted field is kept, null removes it. */
export interface ApiKeyPatch {
  budget?: { limitMicro: number; period: string } | null;
  expiresAt?: string | null;
}

/** A user of an app in one mode: a sandbox user and a live user of the same address are two users. */
export interface AppUserRecord {
  appUuid: string;
  address: string;
  livemode: boolean;
  balanceMicro: number;
  heldMicro: number;
  creditLimitMicro: number | null;
  spentMicro: number;
  /** The user's own budget, overriding the app's default (null: the app's applies, if any). */
  budget: BudgetLimit | null;
  /** The start of the window the user last spent in (null: never), and what was settled in it. */
  budgetWindow: { windowStart: string | null; spentMicro: number };
  createdAt: string;
}

/** What a user update changes: an omitted field is kept, null removes it. */
export interface AppUserPatch {
  creditLimitMicro?: number | null;
  budget?: BudgetLimit | null;
}

/** What an API key resolves to: the key, its app and the developer who owns the app. */
export interface KeyOwner {
  key: ApiKeyRecord;
  app: AppRecord;
}

/** A new app: what its record starts with; limits, claims and budget default when left out. */
export type NewApp = Pick<AppRecord, 'appUuid' | 'developerId' | 'name' | 'appType' | 'defaultUserCreditsMicro' | 'allowedOrigins'> &
  Partial<Pick<AppRecord, 'rateLimitRpm' | 'rateLimitTpm' | 'userClaims' | 'userBudget'>> & { at: string };

export interface AppPatch {
  name?: string;
  defaultUserCreditsMicro?: number;
  allowedOrigins?: string[];
  /** null clears the override. */
  rateLimitRpm?: number | null;
  rateLimitTpm?: number | null;
  userClaims?: boolean;
  /** null removes the default; a changed default starts a fresh window for the users it applies to. */
  userBudget?: BudgetLimit | null;
}

/**
 * Where a deleted app's credits go: another live app of the same developer (live to live, test to
 * test), or back to the operator (live credits to the promotions account; test credits, play
 * money, are written off).
 */
export type BalanceDestination = { appUuid: string } | { operator: true };

/** What deleting an app did, or why it did not. Amounts in micro-credits. */
export type AppDeletion =
  | { outcome: 'deleted'; movedMicro: number; movedTestMicro: number }
  | { outcome: 'not_found' }
  /** `moveTo` names an app that is not one of the developer's live apps (or is this app). */
  | { outcome: 'destination_not_found' }
  /** Kept: it holds credits and no destination was given, or requests in flight hold some. */
  | { outcome: 'holds_credits'; balanceMicro: number; testBalanceMicro: number; heldMicro: number };

export interface NewApiKey {
  keyId: string;
  appUuid: string;
  name: string;
  isTest: boolean;
  role: KeyRole;
  prefix: string;
  secretHash: string;
  budget?: { limitMicro: number; period: string } | null;
  expiresAt?: string | null;
  at: string;
}

/** One of the server's own signing key pairs (JWKS), as JSON Web Keys. */
export interface SigningKeyRecord {
  kid: string;
  algorithm: string;
  publicJwk: Record<string, unknown>;
  privateJwk: Record<string, unknown>;
  createdAt: string;
}

export type TextChannel = 'sms' | 'messenger';

/**
 * An identifier registered on a text channel. `owner` is the caller within the app and mode: `app`
 * for the app itself (any of its API keys of that mode), `user:<address>` for an end user of the
 * app. Test and live registrations of one identifier are two objects.
 */
export interface TextRegistrationRecord extends AppScope {
  channel: TextChannel;
  identifier: string;
  owner: string;
  preferredModel: string | null;
  createdAt: string;
  updatedAt: string;
}
