import { Text } from 'ink';
import { Spinner } from '../../shared/Spinner.js';
import type { DashboardSession } from '../session.js';

/** What an app's screen shows before there is an app to show. */
export function NoApp({ session }: { session: DashboardSession }) {
  const apps = session.apps.resource;
  if (apps.status === 'loading') return <Spinner label="Loading apps…" />;
  if (apps.status === 'error') {
    return (
      <Text color="red" wrap="wrap">
        ✖ Could not load the apps: {apps.error}
      </Text>
    );
  }
  return (
    <Text dimColor wrap="wrap">
      No app yet: create one on the Apps screen (1, then n).
    </Text>
  );
}
