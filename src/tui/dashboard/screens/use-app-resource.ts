import type { DashboardSession } from '../session.js';
import type { SelectedApp } from '../state.js';
import { useResource } from '../use-resource.js';

/** Data of the selected app, loaded again when another app is selected. */
export function useAppResource<T>(session: DashboardSession, load: (app: SelectedApp) => Promise<T>, deps: readonly unknown[] = []) {
  const app = session.state.app;
  const resource = useResource(app ? () => load(app) : null, [app?.app_uuid, ...deps]);
  return { app, ...resource };
}
