import type { ScreenAction } from '../keys.js';
import type { DashboardSession } from '../session.js';
import { useCursor } from '../use-cursor.js';
import { dataOf, useResource } from '../use-resource.js';

/**
 * The Providers screen: each upstream target the server serves and its breaker. It reloads with
 * the dashboard's one auto-refresh, as every screen does (its interval, `--refresh`, `-` `+` and
 * Space); r reloads at once. Needs an admin key.
 */
export function useProvidersScreen(session: DashboardSession, visibleRows: number) {
  const { resource, reload } = useResource(() => session.api.providerStatus(), [session.api]);
  const targets = dataOf(resource)?.data ?? [];
  const cursor = useCursor(targets.length, visibleRows);

  const handle = (action: ScreenAction<'providers'>) => {
    if (cursor.move(action)) return;
    if (action === 'refresh') void reload();
  };

  return { resource, targets, cursor, handle };
}
