// The store's own errors, which the services map to API errors (server/errors.ts apiErrorOf).

export class InsufficientFundsError extends Error {
  constructor(
    readonly availableMicro: number,
    readonly neededMicro: number,
  ) {
    super('insufficient funds');
  }
}

/** The database cannot be reached now (a network or server outage): worth retrying, not a bug. */
export class StoreUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`the database is unavailable: ${reason}`);
  }
}

/** A move that would take a balance past 2^53 micro-credits, beyond exact integer arithmetic. */
export class BalanceLimitError extends Error {
  constructor(readonly accountId: number) {
    super(`account ${accountId} would pass the largest balance kept exactly (2^53 micro-credits)`);
  }
}
