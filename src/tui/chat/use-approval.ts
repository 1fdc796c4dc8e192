import { useCallback, useRef } from 'react';
import type { ToolCall } from '../../chat/types.js';
import type { ChatStore } from './use-chat-state.js';

export type ApprovalChoice = 'once' | 'session' | 'deny';

/** Approvals for tools that write: the pending question, its answer, and what is allowed for the session. */
export function useApproval({ dispatch }: ChatStore) {
  const resolver = useRef<((choice: ApprovalChoice) => void) | null>(null);
  const allowedForSession = useRef(new Set<string>());

  const ask = useCallback(
    (call: ToolCall, summary: string) =>
      new Promise<ApprovalChoice>((resolve) => {
        resolver.current = resolve;
        dispatch({ type: 'approval', approval: { call, summary } });
      }),
    [dispatch],
  );

  const resolveApproval = useCallback(
    (choice: ApprovalChoice) => {
      const resolve = resolver.current;
      resolver.current = null;
      dispatch({ type: 'approval', approval: null });
      resolve?.(choice);
    },
    [dispatch],
  );

  /** Approval for a tool that writes: once, for the session, or not at all. */
  const approve = useCallback(
    async (call: ToolCall, summary: string) => {
      if (allowedForSession.current.has(call.function.name)) return true;
      const choice = await ask(call, summary);
      if (choice === 'session') allowedForSession.current.add(call.function.name);
      return choice !== 'deny';
    },
    [ask],
  );

  /** A question still open is denied (the answer it belongs to is being cancelled). */
  const denyPending = useCallback(() => {
    if (resolver.current) resolveApproval('deny');
  }, [resolveApproval]);

  return { approve, resolveApproval, denyPending };
}

export type Approval = ReturnType<typeof useApproval>;
