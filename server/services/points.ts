import { request } from 'undici';
import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { ApiError, invalidRequest } from '../errors.js';
import { creditsToMicro, microToCredits } from '../store/money.js';
import type { Store } from '../store/types.js';
import { claimantOf, payReward } from './credits.js';

/** The external points program: `GET <url>?address=<wallet>` answers `{"points": <number>}`. */
export interface PointsProgram {
  url: string;
  creditsPerPoint: number;
}

const PointsAnswer = z.object({ points: z.number().int().min(0) });

/**
 * `credits sync-points`: converts the points a user has earned in the external program into
 * credits, for the points not converted yet. Each conversion's ledger entry records the points
 * total it converted up to (its reference, and its idempotency key), so a repeated sync, or two at
 * once, grants nothing twice, and points that go down grant nothing.
 */
export function createPointsService(deps: { store: Store; clock: Clock; points: PointsProgram | null }) {
  return {
    async sync(principal: Principal) {
      if (!deps.points) {
        throw new ApiError(503, 'service_unavailable', 'No points program is configured on this server (SVC_POINTS_URL).', 'points_not_configured');
      }
      if (principal.kind !== 'user') {
        throw invalidRequest('Points belong to a user: call this with the user’s identity token, not an API key.', null, 'user_required');
      }
      const url = new URL(deps.points.url);
      url.searchParams.set('address', principal.address);
      let points: number;
      try {
        const answer = await request(url, { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
        if (answer.statusCode !== 200) {
          await answer.body.dump();
          throw new Error(`HTTP ${answer.statusCode}`);
        }
        points = PointsAnswer.parse(await answer.body.json()).points;
      } catch (error) {
        throw new ApiError(502, 'upstream_error', `The points program did not answer usefully (${(error as Error).message}).`, 'points_unavailable');
      }
      const claimant = claimantOf(principal);
      const converted = await deps.store.credits.highestReference(claimant, 'points_sync');
      const fresh = Math.max(0, points - converted);
      let balanceMicro: number | null = null;
      if (fresh > 0) {
        const result = await payReward(deps.store, principal, {
          amountMicro: creditsToMicro(fresh * deps.points.creditsPerPoint),
          kind: 'points_sync',
          idempotencyKey: `points:${points}`,
          reference: String(points),
          at: deps.clock.now().toISOString(),
        });
        if (result.granted) balanceMicro = result.balanceMicro;
      }
      const granted = balanceMicro === null ? 0 : fresh * deps.points.creditsPerPoint;
      balanceMicro ??= (await deps.store.metering.balance(claimant)).balanceMicro;
      return { points, converted_points: Math.max(points, converted), granted_credits: granted, credits: microToCredits(balanceMicro) };
    },
  };
}
