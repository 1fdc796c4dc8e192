export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The last turns of each sender's conversation. The platform keeps no conversation state, so the
 * bot sends the recent history with every message. Kept in memory: a restart forgets it, and a
 * bot with many users would keep it in a database instead.
 */
export class Conversations {
  /** Map order is least recently active first, which makes evicting the oldest sender cheap. */
  private readonly bySender = new Map<string, Turn[]>();

  constructor(
    private readonly maxTurns = 20,
    private readonly maxSenders = 1_000,
  ) {}

  history(sender: string): readonly Turn[] {
    return this.bySender.get(sender) ?? [];
  }

  record(sender: string, ...turns: Turn[]): void {
    const kept = [...this.history(sender), ...turns].slice(-this.maxTurns);
    this.bySender.delete(sender);
    this.bySender.set(sender, kept);
    if (this.bySender.size > this.maxSenders) {
      const oldest = this.bySender.keys().next().value;
      if (oldest !== undefined) this.bySender.delete(oldest);
    }
  }
}
