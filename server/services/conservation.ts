import { APP_BALANCE_MOVE } from '../store/app-deletion.js';
import { UPGRADE_GRANT, type LedgerAudit, type Store } from '../store/types.js';

/** The ledger kind of the operator's grants (`svc admin credits grant`, a new server's starting credits). */
export const OPERATOR_GRANT = 'operator_grant';

/**
 * Where live credits come from and go (ARCHITECTURE.md §6). Every credit enters through a source: a payment
 * a real processor confirmed, a paid subscription period, or an operator grant. Transfers move
 * credits between accounts (two entries under one key, summing to nothing): a user's default
 * credits and top-ups from the app, rewards from their sponsor, a deleted app's balance to where
 * its developer sent it. Inference spends.
 */
export const LEDGER_KINDS = {
  sources: ['credit_pack', 'app_funding', 'subscription_grant', UPGRADE_GRANT, OPERATOR_GRANT],
  transfers: ['user_grant', 'user_top_up', 'daily_claim', 'task_reward', 'points_sync', APP_BALANCE_MOVE],
  spend: ['inference'],
} as const;

const classOf = (kind: string): keyof typeof LEDGER_KINDS | null => {
  for (const [name, kinds] of Object.entries(LEDGER_KINDS)) if ((kinds as readonly string[]).includes(kind)) return name as keyof typeof LEDGER_KINDS;
  return null;
};

export interface ConservationReport {
  ok: boolean;
  /** Each line a violation; empty when the ledger is sound. */
  problems: string[];
  /** Micro-credits, as exact decimal strings. */
  figures: { sources: Record<string, string>; spent: string; transfers: string; legacy: string; liveBalances: string };
  shortfalls: LedgerAudit['shortfalls'];
}

/**
 * The conservation check (`svc serve --check`): every balance equals its ledger, transfers sum to
 * nothing, no entry is of a kind without a source, every upgrade grant has the paid charge it
 * names behind it, and the sum of all live balances equals sources − spend. Entries from before
 * the rule (a database older than it) are counted apart.
 * Sums are BigInt: no total rounds, however large.
 */
export async function checkConservation(store: Store): Promise<ConservationReport> {
  const audit = await store.credits.audit();
  const problems = audit.mismatches.map(
    (m) => `account ${m.accountId}: balance ${m.balanceMicro} µcredits, ledger ${m.ledgerMicro} µcredits (off by ${m.balanceMicro - m.ledgerMicro})`,
  );
  const sources: Record<string, bigint> = {};
  let spent = 0n;
  let transfers = 0n;
  let legacy = 0n;
  for (const row of audit.byKind) {
    if (row.legacy) {
      legacy += row.totalMicro;
      continue;
    }
    const kindClass = classOf(row.kind);
    if (kindClass === 'sources') sources[row.kind] = (sources[row.kind] ?? 0n) + row.totalMicro;
    else if (kindClass === 'spend') spent += row.totalMicro;
    else if (kindClass === 'transfers') transfers += row.totalMicro;
    else problems.push(`${row.totalMicro} µcredits of live money came from '${row.kind}', which is no source of credits`);
  }
  for (const grant of await store.checkout.upgradeGrantsWithoutCharge()) {
    problems.push(
      `ledger entry ${grant.entryId}: an upgrade granted ${grant.amountMicro} µcredits without a paid charge of them (it names ${grant.reference ?? 'no charge'})`,
    );
  }
  if (transfers !== 0n) problems.push(`transfers between accounts do not sum to nothing: ${transfers} µcredits appeared`);
  const sourced = Object.values(sources).reduce((sum, value) => sum + value, 0n);
  const expected = sourced + spent + transfers + legacy;
  if (expected !== audit.liveBalanceMicro) {
    problems.push(
      `live balances hold ${audit.liveBalanceMicro} µcredits, but sources − spend is ${expected} µcredits (off by ${audit.liveBalanceMicro - expected})`,
    );
  }
  return {
    ok: problems.length === 0,
    problems,
    figures: {
      sources: Object.fromEntries(Object.entries(sources).map(([kind, value]) => [kind, value.toString()])),
      spent: (-spent).toString(),
      transfers: transfers.toString(),
      legacy: legacy.toString(),
      liveBalances: audit.liveBalanceMicro.toString(),
    },
    shortfalls: audit.shortfalls,
  };
}
