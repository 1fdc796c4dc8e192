/**
 * The tasks a caller can complete for credits (`tasks list`; claimed with `credits claim-task`).
 * A requirement is a count the caller must reach: `memories` is what the client reports in the
 * claim (memories live client-side), `chat_requests` is counted from the caller's usage.
 */
export interface TaskDefinition {
  type: string;
  title: string;
  rewardCredits: number;
  requirement: { count: 'memories' | 'chat_requests'; atLeast: number };
}

export const taskCatalog: readonly TaskDefinition[] = [
  { type: 'first_chat', title: 'Send your first chat message', rewardCredits: 2, requirement: { count: 'chat_requests', atLeast: 1 } },
  { type: 'save_first_memory', title: 'Save your first memory', rewardCredits: 5, requirement: { count: 'memories', atLeast: 1 } },
  { type: 'save_ten_memories', title: 'Save ten memories', rewardCredits: 20, requirement: { count: 'memories', atLeast: 10 } },
];

/** The catalog for one caller: `claimed` from the ledger (see `credits claim-task`). */
export function createTasksService() {
  return {
    list: (claimed: ReadonlySet<string>) => ({
      object: 'list' as const,
      data: taskCatalog.map((task) => ({
        type: task.type,
        title: task.title,
        reward_credits: task.rewardCredits,
        requirement: `${task.requirement.count} ≥ ${task.requirement.atLeast}`,
        claimed: claimed.has(task.type),
      })),
    }),
  };
}
