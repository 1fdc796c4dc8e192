import { microToCredits } from '../store/money.js';
import type { UsageTotals } from '../store/types.js';
import { callerOf } from '../services/inference/caller.js';
import type { HandlerTable } from './types.js';

const totals = (row: UsageTotals) => ({
  requests: row.requests,
  refused_requests: row.refused,
  input_tokens: row.inputTokens,
  cached_input_tokens: row.cacheReadTokens,
  cache_write_tokens: row.cacheWriteTokens,
  output_tokens: row.outputTokens,
  reasoning_tokens: row.reasoningTokens,
  credits: microToCredits(row.chargedMicro),
});

const modelTotals = (row: UsageTotals & { provider: string; model: string }) => ({ model: `${row.provider}/${row.model}`, ...totals(row) });

export const usageHandlers: HandlerTable = {
  'credits.balance': async ({ principal, services }) => {
    const caller = callerOf(principal);
    const { balanceMicro, heldMicro } = await services.store.metering.balance(caller.payer);
    return { credits: microToCredits(balanceMicro - heldMicro), held_credits: microToCredits(heldMicro), livemode: !caller.isTest };
  },

  'usage.models': async ({ principal, query, services }) => {
    const window = services.usage.modelWindow(query);
    const caller = callerOf(principal);
    const rows = await services.usage.byModel({ appUuid: caller.appUuid, livemode: !caller.isTest, address: caller.address, ...window });
    return { data: rows.map(modelTotals), ...window };
  },

  'developer.apps.usage': async ({ principal, params, query, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    const window = services.usage.appWindow(query);
    // Each mode sees its own usage only: a test key the test requests, a live key the live ones.
    const filter = { appUuid: app.appUuid, livemode: principal.livemode, ...window };
    const [{ buckets, totals: sum }, models] = await Promise.all([
      services.usage.buckets(filter, query.granularity),
      services.usage.byModel(filter),
    ]);
    return {
      app_uuid: app.appUuid,
      granularity: query.granularity,
      start_time: window.start,
      end_time: window.end,
      data: buckets.map((bucket) => ({ start: bucket.start, ...totals(bucket) })),
      totals: totals(sum),
      models: models.map(modelTotals),
    };
  },

  'developer.apps.usage.users': async ({ principal, params, query, services }) => {
    const app = await services.apps.get(principal.developerId, params.app_uuid);
    const window = services.usage.appWindow(query);
    const page = await services.usage.byUser({ appUuid: app.appUuid, livemode: principal.livemode, ...window }, query);
    return {
      data: page.items.map((row) => ({ address: row.address, ...totals(row) })),
      limit: query.limit,
      offset: query.offset,
      total: page.total,
    };
  },
};
