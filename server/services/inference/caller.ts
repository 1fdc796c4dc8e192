import type { Principal } from '../../auth/principal.js';
import type { Payer } from '../../store/types.js';

/** Who makes an inference request and who pays for it (DESIGN §5). */
export interface Caller {
  payer: Payer;
  appUuid: string;
  keyId: string | null;
  address: string | null;
  isTest: boolean;
}

export function callerOf(principal: Principal): Caller {
  if (principal.kind === 'api_key') {
    return {
      payer: { kind: 'app', appUuid: principal.app.appUuid },
      appUuid: principal.app.appUuid,
      keyId: principal.keyId,
      address: null,
      isTest: principal.isTest,
    };
  }
  const pooled = principal.app.appType === 'pooled_api';
  return {
    payer: pooled ? { kind: 'app', appUuid: principal.app.appUuid } : { kind: 'user', appUuid: principal.app.appUuid, address: principal.address },
    appUuid: principal.app.appUuid,
    keyId: null,
    address: principal.address,
    isTest: false,
  };
}
