import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AppCreateBody, AppUpdateBody } from '../../src/contract/schemas/apps.js';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { creditsToMicro } from '../store/money.js';
import type { AppRecord, Grant, Page, Store } from '../store/types.js';

export function appNotFound(appUuid: string) {
  return notFound(`No app ${appUuid}.`, 'app_not_found');
}

export function createAppsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  return {
    async create(
      developerId: string,
      input: Omit<z.output<typeof AppCreateBody>, 'user_claims'> & { user_claims?: boolean },
      startingGrant?: Omit<Grant, 'at'>,
    ) {
      const at = now();
      return store.apps.create(
        {
          appUuid: randomUUID(),
          developerId,
          name: input.name,
          appType: input.app_type,
          defaultUserCreditsMicro: creditsToMicro(input.default_user_credits),
          allowedOrigins: [...new Set(input.allowed_origins)],
          rateLimitRpm: input.rate_limit_rpm ?? null,
          rateLimitTpm: input.rate_limit_tpm ?? null,
          userClaims: input.user_claims,
          at,
        },
        startingGrant && { ...startingGrant, at },
      );
    },

    list(developerId: string, page: Page) {
      return store.apps.list(developerId, page);
    },

    /** The developer's app; another developer's or a deleted app is a 404, never a 403. */
    async get(developerId: string, appUuid: string): Promise<AppRecord> {
      const app = await store.apps.get(developerId, appUuid);
      if (!app) throw appNotFound(appUuid);
      return app;
    },

    async update(developerId: string, appUuid: string, input: z.output<typeof AppUpdateBody>) {
      const app = await store.apps.update(
        developerId,
        appUuid,
        {
          name: input.name,
          defaultUserCreditsMicro:
            input.default_user_credits === undefined ? undefined : creditsToMicro(input.default_user_credits),
          // The specification's rule: omitted or null leaves the list, [] clears it, a list sets it.
          allowedOrigins: input.allowed_origins == null ? undefined : [...new Set(input.allowed_origins)],
          // Unlike allowed_origins, null here means something: back to the server default.
          rateLimitRpm: input.rate_limit_rpm,
          rateLimitTpm: input.rate_limit_tpm,
          userClaims: input.user_claims,
        },
        now(),
      );
      if (!app) throw appNotFound(appUuid);
      return app;
    },

    async delete(developerId: string, appUuid: string) {
      if (!(await store.apps.delete(developerId, appUuid, now()))) throw appNotFound(appUuid);
    },
  };
}

export type AppsService = ReturnType<typeof createAppsService>;
