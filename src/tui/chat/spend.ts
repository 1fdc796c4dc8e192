/**
 * What a chat session has spent, by the model that answered. The server's `usage.cost` is in
 * credits with six decimals (micro-credits); sums are kept in integer micro-credits so that
 * many answers add up exactly.
 */
export interface ModelSpend {
  micro: number;
  tokens: number;
  requests: number;
}

export type SessionSpend = Readonly<Record<string, ModelSpend>>;

const MICRO_PER_CREDIT = 1_000_000;

export const toMicro = (credits: number) => Math.round(credits * MICRO_PER_CREDIT);
export const toCredits = (micro: number) => micro / MICRO_PER_CREDIT;

/** A credit amount as the chat shows it: whole from 100, at most two decimals from 1, two significant digits below. */
export const formatCredits = (value: number) =>
  value === 0 ? '0' : value >= 100 ? value.toFixed(0) : value >= 1 ? String(Number(value.toFixed(2))) : String(Number(value.toPrecision(2)));

/** `spend` with one more request answered by `model`. */
export function addSpend(spend: SessionSpend, model: string, micro: number, tokens: number): SessionSpend {
  const before = spend[model] ?? { micro: 0, tokens: 0, requests: 0 };
  return { ...spend, [model]: { micro: before.micro + micro, tokens: before.tokens + tokens, requests: before.requests + 1 } };
}

export const totalMicro = (spend: SessionSpend) => Object.values(spend).reduce((sum, model) => sum + model.micro, 0);

/** The session's cap (`--max-spend`) as the server counts it: the budget of the session's key and what is left of it. */
export interface SpendCap {
  limit: number;
  /** Null until the server has been asked. */
  remaining: number | null;
}

/** What /cost prints: the session's spend by model, dearest first, and the cap when there is one. */
export function spendReport(spend: SessionSpend, cap: SpendCap | null): string {
  const models = Object.entries(spend).sort(([, a], [, b]) => b.micro - a.micro);
  const total = `Spent this session: ${formatCredits(toCredits(totalMicro(spend)))} credits`;
  const width = Math.max(0, ...models.map(([model]) => model.length));
  const rows = models.map(
    ([model, { micro, tokens, requests }]) =>
      `  ${model.padEnd(width)}  ${formatCredits(toCredits(micro))} credits · ${requests} ${requests === 1 ? 'request' : 'requests'} · ${tokens} tokens`,
  );
  const capLine = cap
    ? [`Cap (--max-spend, kept by the server): ${formatCredits(cap.limit)} credits${cap.remaining !== null ? `, ${formatCredits(cap.remaining)} left` : ''}.`]
    : [];
  return [models.length ? `${total}:` : `${total}.`, ...rows, ...capLine].join('\n');
}
