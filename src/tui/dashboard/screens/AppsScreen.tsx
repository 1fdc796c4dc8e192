import { Box, Text } from 'ink';
import { PageTable } from '../components/PageTable.js';
import type { Column } from '../components/Table.js';
import { credits, day } from '../format.js';
import type { ScreenProps } from '../session.js';
import { useAppsScreen } from './apps.js';

const COLUMNS: Column[] = [
  { title: 'Name' },
  { title: 'Type', width: 8 },
  { title: 'Balance', width: 10, align: 'right' },
  { title: 'User cr.', width: 8, align: 'right' },
  { title: 'Origins', width: 7, align: 'right' },
  { title: 'Created', width: 10 },
];

/** Your apps; Enter picks the app the Keys, Users and Usage screens show. */
export function AppsScreen({ session, width, height }: ScreenProps) {
  const screen = useAppsScreen(session, height - 3);
  session.registerKeys('apps', screen.handle, screen.selected);
  const selected = session.state.app?.app_uuid;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Apps{screen.resource.status === 'ready' ? ` (${screen.resource.data.total})` : ''}
        <Text dimColor> · Enter opens an app's keys</Text>
      </Text>
      <PageTable
        resource={screen.resource}
        what="apps"
        empty="No apps yet. Press n to create one."
        columns={COLUMNS}
        cells={(app) => [
          `${app.app_uuid === selected ? '● ' : ''}${app.name}`,
          app.app_type === 'pooled_api' ? 'pooled' : 'standard',
          credits(app.balance_credits),
          credits(app.default_user_credits),
          String(app.allowed_origins.length),
          day(app.created_at),
        ]}
        cursor={screen.cursor.index}
        height={height - 1}
        width={width}
        filter={session.state.filters.apps}
        rows={screen.list}
      />
    </Box>
  );
}
