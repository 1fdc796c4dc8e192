import { useCallback, useRef } from 'react';
import type { Client } from '../../client/client.js';
import { clientOperations } from '../../client/operation-refs.js';
import { PublicConfig } from '../../contract/schemas/surface.js';
import { describeFailure, type Caller } from './failure.js';
import type { ChatStore } from './use-chat-state.js';

/** How often, and how long apart, the balance is read again while a charge is still held. */
const SETTLE_ATTEMPTS = 20;
const SETTLE_WAIT_MS = 25;

/** The key the chat runs on: who it is (what a failure suggests depends on it), its balance, a `--max-spend` cap. */
export function useAccount(client: Client, { dispatch, latest }: ChatStore, maxSpend: number | null) {
  /** Who the key is, once GET /config has said, and that read. */
  const caller = useRef<Caller | null>(null);
  const callerRead = useRef<Promise<void>>(Promise.resolve());

  const notice = useCallback((text: string) => dispatch({ type: 'item', kind: 'notice', text }), [dispatch]);
  const failure = useCallback(
    (error: unknown) => dispatch({ type: 'item', kind: 'error', text: describeFailure(error, caller.current, maxSpend) }),
    [dispatch, maxSpend],
  );

  const readCaller = useCallback(() => {
    callerRead.current = (async () => {
      try {
        const config = PublicConfig.pick({ caller: true }).safeParse(await client.call(clientOperations.config));
        if (config.success) caller.current = config.data.caller;
      } catch {
        // Without it a 402 gives the hint that fits every key.
      }
    })();
  }, [client]);

  /** A failure once the caller is known: a question sent at once must wait for it. */
  const failureForCaller = useCallback(
    async (error: unknown) => {
      await callerRead.current;
      failure(error);
    },
    [failure],
  );

  /**
   * The balance once nothing is held for this chat: right after an answer (a cancelled one above
   * all) the server may still be settling it, and a held amount is not what was charged.
   */
  const refreshBalance = useCallback(async () => {
    try {
      for (let attempt = 0; ; attempt++) {
        const balance = await client.call(clientOperations.balance);
        if (balance.held_credits === 0 || attempt >= SETTLE_ATTEMPTS) {
          dispatch({ type: 'balance', balance: balance.credits });
          return balance.credits;
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
      }
    } catch {
      return null;
    }
  }, [client, dispatch]);

  /** What is left of a `--max-spend` session's cap, as the server counts it (GET /key of the session's key). */
  const refreshCap = useCallback(async () => {
    if (!latest().cap) return;
    try {
      const key = await client.call(clientOperations.key);
      if (key.data.limit_remaining !== null) dispatch({ type: 'capRemaining', remaining: key.data.limit_remaining });
    } catch {
      // The status line keeps what it knew; the server still holds the cap.
    }
  }, [client, dispatch, latest]);

  return { notice, failure, failureForCaller, readCaller, refreshBalance, refreshCap };
}

export type Account = ReturnType<typeof useAccount>;
