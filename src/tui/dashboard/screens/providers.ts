import { useEffect } from 'react';
import type { ScreenAction } from '../keys.js';
import type { DashboardSession } from '../session.js';
import { useCursor } from '../use-cursor.js';
import { dataOf, useResource } from '../use-resource.js';

/** How often the screen reads the targets again while it is shown. */
export const PROVIDERS_REFRESH_MS = 2_000;

/**
 * The Providers screen: each upstream target the server serves and its breaker,
 * read again every PROVIDERS_REFRESH_MS (the last figures stay on screen while a read is under
 * way). Needs an admin key; r reloads at once.
 */
export function useProvidersScreen(session: DashboardSession, visibleRows: number, refreshMs = PROVIDERS_REFRESH_MS) {
  const { resource, reload } = useResource(() => session.api.providerStatus(), [session.api]);
  useEffect(() => {
    const timer = setInterval(() => void reload(), refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);
  const targets = dataOf(resource)?.data ?? [];
  const cursor = useCursor(targets.length, visibleRows);

  const handle = (action: ScreenAction<'providers'>) => {
    if (cursor.move(action)) return;
    if (action === 'refresh') void reload();
  };

  return { resource, targets, cursor, handle };
}
