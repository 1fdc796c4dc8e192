import type { Grant } from './types.js';

/**
 * Ledger kinds of a deleted app's credits. A move is a transfer (its two entries sum to nothing,
 * so the conservation check still balances); a write-off only ever takes test money, which has
 * no source to answer for.
 */
export const APP_BALANCE_MOVE = 'app_balance_move';
export const TEST_WRITE_OFF = 'test_write_off';

/** One balance of the app being deleted: its account, where its credits go, how many there are. */
export interface BalanceMove {
  from: number;
  /** The receiving account; null writes test money off (never live money: it must stay somewhere). */
  to: number | null;
  amountMicro: number;
}

/**
 * The entries that empty one balance of a deleted app, both backends alike: the app's debit and
 * the destination's credit under one idempotency key per deletion (the debit's key names the
 * receiving account, as transfers do), or the debit alone when test money is written off.
 */
export function balanceMoveEntries(appUuid: string, at: string, move: BalanceMove): { accountId: number; grant: Grant }[] {
  if (move.amountMicro === 0) return [];
  const key = `app-deleted:${appUuid}`;
  if (move.to === null) {
    return [{ accountId: move.from, grant: { amountMicro: -move.amountMicro, kind: TEST_WRITE_OFF, idempotencyKey: key, reference: `app ${appUuid} deleted`, at } }];
  }
  return [
    { accountId: move.from, grant: { amountMicro: -move.amountMicro, kind: APP_BALANCE_MOVE, idempotencyKey: `${key}→${move.to}`, reference: `account ${move.to}`, at } },
    { accountId: move.to, grant: { amountMicro: move.amountMicro, kind: APP_BALANCE_MOVE, idempotencyKey: key, reference: `app ${appUuid} deleted`, at } },
  ];
}
