import type { DashboardApi, Page, App } from './api.js';
import type { SignedIn } from './account.js';
import { dataOf, useResource, type Resource } from './use-resource.js';

/** Apps looked through for the key in use: a developer with more sees "the key's own". */
const APPS_SEARCHED = 20;

/**
 * Which app the dashboard's key belongs to (its keys list holds it) and its mode (the balance
 * says). Looked up once the apps are known, or known to be out of reach (a key whose role may
 * not list them still gets its mode).
 */
export function useSignedIn(api: DashboardApi, apps: Resource<Page<App>>): SignedIn | null {
  const list = dataOf(apps)?.items ?? [];
  const settled = apps.status !== 'loading';
  const { resource } = useResource(
    settled
      ? async (): Promise<SignedIn> => {
          const livemode = await api.balance().then(
            (balance) => balance.livemode,
            () => null,
          );
          for (const app of list.slice(0, APPS_SEARCHED)) {
            const keys = await api.keys(app.app_uuid).catch(() => null);
            if (keys === null) break;
            if (keys.items.some((key) => api.signedInWith(key))) return { app: { app_uuid: app.app_uuid, name: app.name }, livemode };
          }
          return { app: null, livemode };
        }
      : null,
    [api, settled],
  );
  return dataOf(resource);
}
