import { Box, Text } from 'ink';
import { PageTable } from '../components/PageTable.js';
import type { Column } from '../components/Table.js';
import { day } from '../format.js';
import type { ScreenProps } from '../session.js';
import { budgetCell } from './budget.js';
import { keyLimits, useKeysScreen } from './keys.js';
import { NoApp } from './NoApp.js';

const COLUMNS: Column[] = [
  { title: 'Name' },
  { title: 'Kind', width: 4 },
  { title: 'Role', width: 9 },
  { title: 'Prefix', width: 15 },
  { title: 'Budget', width: 14 },
  { title: 'Last used', width: 10 },
];

export function KeysScreen({ session, width, height }: ScreenProps) {
  const screen = useKeysScreen(session, height - 4);
  session.registerKeys('keys', screen.handle, () => screen.list[screen.cursor.current()]);
  if (!screen.app) return <NoApp session={session} />;
  const selected = screen.list[screen.cursor.current()];
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        API keys of {screen.app.name}
        <Text dimColor> · secrets are shown once, when a key is made</Text>
      </Text>
      <PageTable
        resource={screen.resource}
        what="keys"
        empty={`${screen.app.name} has no keys. Press n to create one.`}
        columns={COLUMNS}
        cells={(key) => [key.name, key.is_test ? 'test' : 'live', key.role, key.prefix, budgetCell(key), key.last_used_at ? day(key.last_used_at) : 'never']}
        cursor={screen.cursor.index}
        height={height - 2}
        width={width}
        filter={session.state.filters.keys}
        rows={screen.list}
      />
      <Text dimColor wrap="truncate-end">
        {selected ? `${selected.name}: ${keyLimits(selected)}` : ' '}
      </Text>
    </Box>
  );
}
