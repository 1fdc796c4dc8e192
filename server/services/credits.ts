import { isTestMode, type Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { ApiError, conflict, forbidden, invalidRequest } from '../errors.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import { InsufficientFundsError, type Grant, type Payer, type Store } from '../store/types.js';
import { DAILY_CLAIM_CREDITS } from './public-config.js';
import { taskCatalog } from './tasks.js';

/** The account a caller's claims credit: its app (API key) or the user (identity token); test mode's is the test one. */
export function claimantOf(principal: Principal): Payer {
  const test = isTestMode(principal);
  return principal.kind === 'api_key'
    ? { kind: 'app', appUuid: principal.app.appUuid, test }
    : { kind: 'user', appUuid: principal.app.appUuid, address: principal.address, test };
}

/**
 * Who pays a caller's rewards (ARCHITECTURE.md §6): an end user's app, from its balance; a developer's
 * own claims, the operator's promotions account. Test mode's rewards are play money: no sponsor.
 */
export function sponsorOf(principal: Principal): Payer | null {
  if (isTestMode(principal)) return null;
  if (principal.kind === 'api_key') return { kind: 'promotions' };
  if (!principal.app.userClaims) {
    throw forbidden(
      `App ${principal.app.appUuid} does not pay its users' claims and rewards (its user_claims setting is off).`,
      'user_claims_disabled',
    );
  }
  return { kind: 'app', appUuid: principal.app.appUuid };
}

/** A reward the sponsor cannot pay: a 402 that says who must fund what. */
function sponsorCannotPay(principal: Principal, error: InsufficientFundsError) {
  const what = `${microToCredits(error.neededMicro)} credits; it has ${microToCredits(error.availableMicro)}`;
  return new ApiError(
    402,
    'insufficient_credits',
    principal.kind === 'api_key'
      ? `Developers' claims are paid from the operator's promotions account, which cannot pay ${what}. ` +
          'The operator funds it with `svc admin credits grant --promotions --credits N`.'
      : `This app pays its users' claims from its balance, which cannot pay ${what}. The developer must fund the app.`,
    'sponsor_cannot_pay',
  );
}

/**
 * Credits a reward: moved from the sponsor (or play money in test mode), once per idempotency
 * key. `granted: false` when the key has credited the claimant before.
 */
export async function payReward(store: Store, principal: Principal, grant: Grant) {
  const sponsor = sponsorOf(principal);
  const claimant = claimantOf(principal);
  try {
    return sponsor ? await store.credits.transfer(sponsor, claimant, grant) : await store.credits.grant(claimant, grant);
  } catch (error) {
    if (error instanceof InsufficientFundsError) throw sponsorCannotPay(principal, error);
    throw error;
  }
}

const dailyKey = (day: string) => `claim-daily:${day}`;
const taskKey = (type: string) => `task:${type}`;

/**
 * Credits the platform grants: the daily claim (once per caller and UTC day) and task rewards
 * (once per caller and task). Each grant's idempotency key makes "once" hold under any
 * concurrency: the ledger refuses the same key twice for one account.
 */
export function createCreditsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  return {
    async claimDaily(principal: Principal) {
      const now = clock.now();
      const day = now.toISOString().slice(0, 10);
      const next = new Date(`${day}T00:00:00.000Z`);
      next.setUTCDate(next.getUTCDate() + 1);
      const amount = creditsToMicro(DAILY_CLAIM_CREDITS);
      const result = await payReward(store, principal, {
        amountMicro: amount,
        kind: 'daily_claim',
        idempotencyKey: dailyKey(day),
        at: now.toISOString(),
      });
      if (!result.granted) {
        throw conflict(`The daily credits for ${day} (UTC) are already claimed; the next claim opens at ${next.toISOString()}.`, 'already_claimed');
      }
      return { granted_credits: DAILY_CLAIM_CREDITS, credits: microToCredits(result.balanceMicro), next_claim_at: next.toISOString() };
    },

    async claimTask(principal: Principal, input: { task_type: string; memories?: number | undefined }) {
      const task = taskCatalog.find((t) => t.type === input.task_type);
      if (!task) {
        throw invalidRequest(`Unknown task '${input.task_type}'; tasks list shows them (${taskCatalog.map((t) => t.type).join(', ')}).`, 'task_type');
      }
      sponsorOf(principal); // refuses at once when the app does not pay its users' rewards
      let reached: number;
      if (task.requirement.count === 'memories') {
        if (input.memories === undefined) throw invalidRequest(`Task '${task.type}' needs memories: how many memories you have saved.`, 'memories', 'missing_field');
        reached = input.memories;
      } else {
        const rows = await store.usage.byModel({
          appUuid: principal.app.appUuid,
          livemode: principal.livemode,
          address: principal.kind === 'user' ? principal.address : null,
          start: new Date(0).toISOString(),
          end: clock.now().toISOString(),
        });
        // Requests that reached a model: refused ones do not count.
        reached = rows.reduce((sum, row) => sum + row.requests - row.refused, 0);
      }
      if (reached < task.requirement.atLeast) {
        throw invalidRequest(
          `Task '${task.type}' needs ${task.requirement.count} ≥ ${task.requirement.atLeast}; you have ${reached}.`,
          task.requirement.count === 'memories' ? 'memories' : 'task_type',
          'requirement_not_met',
        );
      }
      const result = await payReward(store, principal, {
        amountMicro: creditsToMicro(task.rewardCredits),
        kind: 'task_reward',
        idempotencyKey: taskKey(task.type),
        reference: task.type,
        at: clock.now().toISOString(),
      });
      if (!result.granted) throw conflict(`Task '${task.type}' is already claimed.`, 'already_claimed');
      return { granted_credits: task.rewardCredits, credits: microToCredits(result.balanceMicro), next_claim_at: null };
    },

    /** Which tasks this caller has claimed. */
    async claimedTasks(principal: Principal): Promise<Set<string>> {
      const used = await store.credits.used(claimantOf(principal), taskCatalog.map((t) => taskKey(t.type)));
      return new Set(taskCatalog.filter((t) => used.has(taskKey(t.type))).map((t) => t.type));
    },

    packs() {
      return {
        object: 'list' as const,
        data: CREDIT_PACKS.map((pack) => ({ id: pack.id, credits: pack.credits, price_usd: pack.priceUsd, price_id: pack.priceId })),
      };
    },
  };
}

/** The credit packs for sale (bought through `credits purchase` once payments are built). */
export const CREDIT_PACKS = [
  { id: 'pack_500', credits: 500, priceUsd: 5, priceId: 'price_credits_500' },
  { id: 'pack_1200', credits: 1200, priceUsd: 10, priceId: 'price_credits_1200' },
  { id: 'pack_6500', credits: 6500, priceUsd: 50, priceId: 'price_credits_6500' },
] as const;
