import type { PendingRateCount, Principal } from '../../auth/principal.js';
import type { AppRecord, Payer } from '../../store/types.js';
import { rateSubject } from '../rate-limits.js';

/** Who makes an inference request and who pays for it (ARCHITECTURE.md §5). */
export interface Caller {
  payer: Payer;
  appUuid: string;
  keyId: string | null;
  address: string | null;
  isTest: boolean;
  /** The app, for its limits. */
  app: AppRecord;
  /** Whose rate limit the tokens count against (the key, or the user). */
  rateSubject: string;
  /** The calling key has a spending budget, checked in the same step as the balance. */
  keyBudgeted: boolean;
  /** Sets a header on the answer (the key's budget headers), when the caller came through HTTP. */
  answerHeader?: ((name: string, value: string) => void) | undefined;
  /** Its request's count against its rate limits, left to its hold (when it came through HTTP). */
  rateCount?: PendingRateCount | undefined;
}

export function callerOf(principal: Principal): Caller {
  if (principal.kind === 'api_key') {
    return {
      // Test mode never touches live money: its balance is the test one.
      payer: { kind: 'app', appUuid: principal.app.appUuid, test: !principal.livemode },
      appUuid: principal.app.appUuid,
      keyId: principal.keyId,
      address: null,
      isTest: !principal.livemode,
      app: principal.app,
      rateSubject: rateSubject(principal),
      keyBudgeted: principal.budgeted === true,
      answerHeader: principal.answerHeader,
      rateCount: principal.rateCount,
    };
  }
  const pooled = principal.app.appType === 'pooled_api';
  const test = !principal.livemode;
  return {
    payer: pooled
      ? { kind: 'app', appUuid: principal.app.appUuid, test }
      : { kind: 'user', appUuid: principal.app.appUuid, address: principal.address, test },
    appUuid: principal.app.appUuid,
    keyId: null,
    address: principal.address,
    isTest: test,
    app: principal.app,
    rateSubject: rateSubject(principal),
    keyBudgeted: false,
    answerHeader: principal.answerHeader,
    rateCount: principal.rateCount,
  };
}
