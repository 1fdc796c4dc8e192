import { useState } from 'react';
import type { AppUsage, Granularity, ModelUsage, UserUsage, UsageWindow } from '../api.js';
import type { ScreenAction } from '../keys.js';
import type { DashboardSession } from '../session.js';
import { useAppResource } from './use-app-resource.js';

/** The windows offered per granularity; w cycles through them. */
export const WINDOWS: Record<Granularity, readonly { label: string; hours: number }[]> = {
  day: [
    { label: '7 days', hours: 7 * 24 },
    { label: '30 days', hours: 30 * 24 },
    { label: '90 days', hours: 90 * 24 },
  ],
  hour: [
    { label: '24 hours', hours: 24 },
    { label: '3 days', hours: 3 * 24 },
    { label: '7 days', hours: 7 * 24 },
  ],
};

export type Metric = 'credits' | 'requests';

export interface UsageData {
  window: UsageWindow;
  /**
   * What a bucket of `usage` spans. The chart is labelled by it, not by the granularity chosen
   * now: right after g the last data is still drawn until the new load has started.
   */
  granularity: Granularity;
  usage: AppUsage;
  topUsers: UserUsage[];
  models: ModelUsage[];
}

/** How many users and models the tables show. */
export const TOP = 5;

/** The selected app's usage: a chart per day or hour over a window, per model, top users. */
export function useUsageScreen(session: DashboardSession) {
  const [granularity, setGranularity] = useState<Granularity>('day');
  const [windowIndex, setWindowIndex] = useState(1);
  const [metric, setMetric] = useState<Metric>('credits');
  const span = WINDOWS[granularity][windowIndex] ?? WINDOWS.day[1]!;

  const { app, resource, reload } = useAppResource(
    session,
    async (selected): Promise<UsageData> => {
      const end = session.now();
      const window = { start: new Date(end.getTime() - span.hours * 3_600_000).toISOString(), end: end.toISOString() };
      const [usage, topUsers] = await Promise.all([
        session.api.usage(selected.app_uuid, window, granularity),
        session.api.topUsers(selected.app_uuid, window, TOP),
      ]);
      return { window, granularity, usage, topUsers, models: usage.models };
    },
    [granularity, windowIndex],
  );

  const handle = (action: ScreenAction<'usage'>) => {
    if (action === 'refresh') return void reload();
    if (action === 'metric') return setMetric((current) => (current === 'credits' ? 'requests' : 'credits'));
    if (action === 'granularity') return setGranularity((current) => (current === 'day' ? 'hour' : 'day'));
    if (action === 'window') return setWindowIndex((current) => (current + 1) % WINDOWS[granularity].length);
  };

  return { app, resource, granularity, metric, span, handle };
}
