import type { OperationId } from '../../contract/operations/index.js';
import type { BodyInput, ResponseOf } from '../../contract/operation.js';
import type { OperationById } from './operations.js';

/**
 * The data port between the screens and the API: every screen reads and writes through this
 * interface, never through URLs. `createDashboardApi` (client-api.ts) builds it on the client;
 * tests may hand a screen a fake. Every shape is the contract's own, by operation id.
 */
type Answer<Id extends OperationId> = ResponseOf<OperationById<Id>>;
type Body<Id extends OperationId> = BodyInput<OperationById<Id>>;

export type App = Answer<'developer.apps.get'>;
export type ApiKey = Answer<'developer.apps.api-keys.list'>['data'][number];
export type CreatedKey = Answer<'developer.apps.api-keys.create'>;
export type AppUser = Answer<'developer.apps.users.list'>['data'][number];
export type AppUsage = Answer<'developer.apps.usage'>;
export type UserUsage = Answer<'developer.apps.usage.users'>['data'][number];
export type ModelUsage = Answer<'developer.apps.usage'>['models'][number];
export type Balance = Answer<'credits.balance'>;
export type Claim = Answer<'credits.claim-daily'>;
export type Task = Answer<'tasks.list'>['data'][number];
export type Pack = Answer<'credits.packs'>['data'][number];
export type Checkout = Answer<'credits.purchase'>;
export type PointsSync = Answer<'credits.sync-points'>;
export type Plan = Answer<'subscriptions.plans'>['data'][number];
export type Subscription = Answer<'subscriptions.status'>;
export type Portal = Answer<'subscriptions.customer-portal'>;
export type BillingRecord = Answer<'developer.billing'>['data'][number];
export type ProviderStatus = Answer<'providers.status'>;
export type ProviderTarget = ProviderStatus['data'][number];

export type AppFields = Body<'developer.apps.create'>;
export type AppChanges = Body<'developer.apps.update'>;
export type AppDisposal = Body<'developer.apps.delete'>;
export type KeyFields = Body<'developer.apps.api-keys.create'>;
export type KeyChanges = Body<'developer.apps.api-keys.update'>;
export type UserChanges = Body<'developer.apps.users.update'>;
export type PlanChoice = Body<'subscriptions.upgrade'>;
export type Granularity = AppUsage['granularity'];

/** A list and how many there are in all (a long list is read up to a cap). */
export interface Page<T> {
  items: T[];
  total: number;
}

export interface UsageWindow {
  start: string;
  end: string;
}

export interface DashboardApi {
  apps(): Promise<Page<App>>;
  createApp(fields: AppFields): Promise<App>;
  updateApp(appUuid: string, changes: AppChanges): Promise<App>;
  /** Deletes the app; `disposal` says where its credits go (an app holding some is refused without). */
  deleteApp(appUuid: string, disposal?: AppDisposal): Promise<void>;
  /** A checkout that adds `credits` to the app's balance once paid. */
  fundApp(appUuid: string, credits: number): Promise<Checkout>;

  keys(appUuid: string): Promise<Page<ApiKey>>;
  createKey(appUuid: string, fields: KeyFields): Promise<CreatedKey>;
  deleteKey(appUuid: string, keyId: string): Promise<void>;
  /** Changes a key's budget or expiry (omitted: unchanged; null: none). */
  updateKey(appUuid: string, keyId: string, changes: KeyChanges): Promise<ApiKey>;
  /** Whether the dashboard signs in with this key (deleting it would lock the dashboard out). */
  signedInWith(key: ApiKey): boolean;

  users(appUuid: string): Promise<Page<AppUser>>;
  topUp(appUuid: string, address: string, credits: number): Promise<AppUser>;
  /** Changes a user's credit limit or own budget (omitted: unchanged; null: none). */
  updateUser(appUuid: string, address: string, changes: UserChanges): Promise<AppUser>;

  usage(appUuid: string, window: UsageWindow, granularity: Granularity): Promise<AppUsage>;
  topUsers(appUuid: string, window: UsageWindow, limit: number): Promise<UserUsage[]>;

  balance(): Promise<Balance>;
  claimDaily(): Promise<Claim>;
  tasks(): Promise<Task[]>;
  claimTask(taskType: string, memories?: number): Promise<Claim>;
  packs(): Promise<Pack[]>;
  purchase(credits: number): Promise<Checkout>;
  syncPoints(): Promise<PointsSync>;

  /** Packs, app funding and subscription charges, newest first. */
  billing(): Promise<Page<BillingRecord>>;

  plans(): Promise<Plan[]>;
  subscription(): Promise<Subscription>;
  checkout(plan: Plan): Promise<Checkout>;
  upgrade(choice: PlanChoice): Promise<Subscription>;
  scheduleDowngrade(choice: PlanChoice): Promise<Subscription>;
  cancelScheduledDowngrade(): Promise<Subscription>;
  cancel(): Promise<Subscription>;
  renew(): Promise<Subscription>;
  portal(): Promise<Portal>;

  /** Each upstream target's breaker, attempts, error rate and median latency (admin keys). */
  providerStatus(): Promise<ProviderStatus>;
}
