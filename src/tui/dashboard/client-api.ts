import type { Client } from '../../client/client.js';
import type { DashboardApi, Page } from './api.js';
import { operationLookup, type OperationEntry } from './operations.js';

/** Lists are read page by page up to this many items; the screens say when there are more. */
const LIST_CAP = 1000;

async function readPages<T>(
  read: (offset: number) => Promise<{ data: T[]; total: number }>,
): Promise<Page<T>> {
  const items: T[] = [];
  let total = 0;
  do {
    const page = await read(items.length);
    items.push(...page.data);
    total = page.total;
    if (page.data.length === 0) break;
  } while (items.length < total && items.length < LIST_CAP);
  return { items, total };
}

export interface DashboardApiOptions {
  client: Client;
  /** The operations by id: the CLI's manifest, or the contract itself in tests. */
  operations: readonly OperationEntry[];
  /** The key the client signs in with. */
  apiKey?: string | undefined;
}

export function createDashboardApi({ client, operations, apiKey }: DashboardApiOptions): DashboardApi {
  const op = operationLookup(operations);
  const app = (appUuid: string) => ({ app_uuid: appUuid });
  const user = (appUuid: string, address: string) => ({ app_uuid: appUuid, address });

  const api: DashboardApi = {
    apps: () => readPages((offset) => client.call(op('developer.apps.list'), { query: { limit: 100, offset } })),
    createApp: (fields) => client.call(op('developer.apps.create'), { body: fields }),
    updateApp: (appUuid, changes) => client.call(op('developer.apps.update'), { params: app(appUuid), body: changes }),
    async deleteApp(appUuid, disposal) {
      await client.call(op('developer.apps.delete'), { params: app(appUuid), ...(disposal ? { body: disposal } : {}) });
    },
    fundApp: (appUuid, credits) => client.call(op('developer.apps.fund'), { params: app(appUuid), body: { credits } }),

    keys: (appUuid) =>
      readPages((offset) => client.call(op('developer.apps.api-keys.list'), { params: app(appUuid), query: { limit: 100, offset } })),
    createKey: (appUuid, fields) => client.call(op('developer.apps.api-keys.create'), { params: app(appUuid), body: fields }),
    // A listed key shows only its public prefix; the secret starts with it.
    signedInWith: (key) => apiKey !== undefined && apiKey.startsWith(key.prefix.replace(/…$/, '')),
    updateKey: (appUuid, keyId, changes) =>
      client.call(op('developer.apps.api-keys.update'), { params: { app_uuid: appUuid, key_id: keyId }, body: changes }),
    async deleteKey(appUuid, keyId) {
      await client.call(op('developer.apps.api-keys.delete'), { params: { app_uuid: appUuid, key_id: keyId } });
    },

    users: (appUuid) =>
      readPages((offset) => client.call(op('developer.apps.users.list'), { params: app(appUuid), query: { limit: 200, offset } })),
    topUp: (appUuid, address, credits) =>
      client.call(op('developer.apps.users.top-up'), { params: user(appUuid, address), body: { credits } }),
    updateUser: (appUuid, address, changes) => client.call(op('developer.apps.users.update'), { params: user(appUuid, address), body: changes }),

    usage: (appUuid, window, granularity) =>
      client.call(op('developer.apps.usage'), {
        params: app(appUuid),
        query: { start_time: window.start, end_time: window.end, granularity },
      }),
    async topUsers(appUuid, window, limit) {
      const answer = await client.call(op('developer.apps.usage.users'), {
        params: app(appUuid),
        query: { start_time: window.start, end_time: window.end, limit, offset: 0 },
      });
      return answer.data;
    },

    balance: () => client.call(op('credits.balance')),
    claimDaily: () => client.call(op('credits.claim-daily')),
    tasks: async () => (await client.call(op('tasks.list'))).data,
    claimTask: (taskType, memories) =>
      client.call(op('credits.claim-task'), { body: { task_type: taskType, ...(memories === undefined ? {} : { memories }) } }),
    packs: async () => (await client.call(op('credits.packs'))).data,
    purchase: (credits) => client.call(op('credits.purchase'), { body: { credits } }),
    syncPoints: () => client.call(op('credits.sync-points')),

    billing: () => readPages((offset) => client.call(op('developer.billing'), { query: { limit: 100, offset } })),
    plans: async () => (await client.call(op('subscriptions.plans'))).data,
    subscription: () => client.call(op('subscriptions.status')),
    checkout: (plan) =>
      client.call(op('subscriptions.create-checkout-session'), { body: { tier: plan.tier, interval: plan.interval } }),
    upgrade: (choice) => client.call(op('subscriptions.upgrade'), { body: choice }),
    scheduleDowngrade: (choice) => client.call(op('subscriptions.schedule-downgrade'), { body: choice }),
    cancelScheduledDowngrade: () => client.call(op('subscriptions.cancel-scheduled-downgrade')),
    cancel: () => client.call(op('subscriptions.cancel')),
    renew: () => client.call(op('subscriptions.renew')),
    portal: () => client.call(op('subscriptions.customer-portal'), { body: {} }),
    providerStatus: () => client.call(op('providers.status')),
  };
  return api;
}
