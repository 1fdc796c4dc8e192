import { describe, expect, it } from 'vitest';
import { createOwnerApp, useTestServer } from '../../../test/helpers/api.js';
import { createClient } from '../../client/client.js';
import { createDashboardApi } from './client-api.js';
import { operationLookup } from './operations.js';
import { serverApi } from '../../../test/helpers/dashboard.js';

const t = useTestServer();

describe('the dashboard port', () => {
  it('reads a long list page by page', async () => {
    for (let i = 0; i < 120; i++) await createOwnerApp(t, { name: `app ${i}` });
    const apps = await serverApi(t).apps();
    expect(apps.total).toBe(121);
    expect(new Set(apps.items.map((app) => app.app_uuid)).size).toBe(121);
  });

  it('says which operation a build lacks, instead of calling a wrong URL', () => {
    const lookup = operationLookup([]);
    expect(() => lookup('credits.balance')).toThrow('does not know the operation credits.balance');
    const api = createDashboardApi({ client: createClient({ baseUrl: t.url }), operations: [] });
    expect(() => api.balance()).toThrow('credits.balance');
  });
});
