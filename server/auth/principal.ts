import type { KeyRole } from '../../src/contract/operation.js';
import type { AppRecord, AppScope, RateCount } from '../store/types.js';
import type { ErrorProtocol } from '../error-shapes.js';

/**
 * A request's count against its caller's rate limits (server/services/rate-limits.ts): its
 * counters and limits, when its window resets, and the protocol its route speaks, whose own
 * rate-limit headers it answers with beside svc's.
 */
export type RatePlan = RateCount & { resetSeconds: number; protocol: ErrorProtocol };

/**
 * A metered request's count, left to its hold (one step on the store, with the reservation):
 * `counted` once done. The pipeline counts a request that ended before its hold.
 */
export interface PendingRateCount {
  plan: RatePlan;
  counted: boolean;
}

/**
 * Who is calling. Developer operations need an API key; end-user operations accept both.
 * `livemode` is false in test mode — a `svc_test_` key, or a user signed in with a sandbox
 * identity token: the offline local provider, sandbox payments, play money, and only test objects.
 */
export type Principal =
  | {
      kind: 'api_key';
      developerId: string;
      app: AppRecord;
      keyId: string;
      livemode: boolean;
      role: KeyRole;
      /** The key has a spending budget: its holds go through the key's window (server/services/budgets.ts). */
      budgeted?: boolean;
      /** Sets a header on this request's answer (the pipeline's; for the budget headers of metered answers). */
      answerHeader?: (name: string, value: string) => void;
      rateCount?: PendingRateCount;
    }
  | {
      kind: 'user';
      developerId: string;
      app: AppRecord;
      address: string;
      livemode: boolean;
      /** Sets a header on this request's answer (the pipeline's; for the routing headers of metered answers). */
      answerHeader?: (name: string, value: string) => void;
      rateCount?: PendingRateCount;
    };

/** Test mode: a test key or a sandbox user. Free local models, sandbox payments, play money. */
export const isTestMode = (principal: Principal): boolean => !principal.livemode;

/**
 * Where the caller's mode-bearing objects are: its mode, in its own app or in `app` (one of its
 * developer's apps that a developer operation names). Every store read and write of such objects
 * is keyed by this, so another mode's object is not found.
 */
export const scopeOf = (principal: Principal, app: { appUuid: string } = principal.app): AppScope => ({
  appUuid: app.appUuid,
  livemode: principal.livemode,
});
