import { Box, Text } from 'ink';
import { PageTable } from '../components/PageTable.js';
import type { Column } from '../components/Table.js';
import { credits } from '../format.js';
import type { ScreenProps } from '../session.js';
import { NoApp } from './NoApp.js';
import { userBudget, useUsersScreen } from './users.js';

const COLUMNS: Column[] = [
  { title: 'Address' },
  { title: 'Balance', width: 10, align: 'right' },
  { title: 'Limit', width: 10, align: 'right' },
  { title: 'Spent', width: 10, align: 'right' },
];

export function UsersScreen({ session, width, height }: ScreenProps) {
  const screen = useUsersScreen(session, height - 4);
  session.registerKeys('users', screen.handle, () => screen.list[screen.cursor.current()]);
  if (!screen.app) return <NoApp session={session} />;
  const page = screen.resource.status === 'ready' ? screen.resource.data : null;
  const selected = screen.list[screen.cursor.current()];
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Users of {screen.app.name}
        {page ? ` (${page.total}${page.items.length < page.total ? `, the first ${page.items.length} shown` : ''})` : ''}
        <Text dimColor> · credits; Enter tops up</Text>
      </Text>
      <PageTable
        resource={screen.resource}
        what="users"
        empty={`${screen.app.name} has no users yet. A user appears on first sign-in with an identity token, or when you add one (n).`}
        columns={COLUMNS}
        cells={(user) => [
          user.address,
          credits(user.credits),
          user.credit_limit === null ? '—' : credits(user.credit_limit),
          credits(user.spent_credits),
        ]}
        cursor={screen.cursor.index}
        height={height - 2}
        width={width}
        filter={session.state.filters.users}
        rows={screen.list}
      />
      <Text dimColor wrap="truncate-end">
        {selected ? `Budget: ${userBudget(selected)}` : ' '}
      </Text>
    </Box>
  );
}
