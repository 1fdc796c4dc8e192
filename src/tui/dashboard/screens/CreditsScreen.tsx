import { Box, Text } from 'ink';
import { Loadable } from '../components/Loadable.js';
import { Table, type Column } from '../components/Table.js';
import { credits, minute, usd } from '../format.js';
import type { ScreenProps } from '../session.js';
import { useCreditsScreen, type CreditsRow } from './credits.js';

const COLUMNS: Column[] = [
  { title: '', width: 4 },
  { title: 'Task or pack' },
  { title: 'Credits', width: 8, align: 'right' },
  { title: 'Price', width: 8, align: 'right' },
  { title: 'Status', width: 18 },
];

const cells = (row: CreditsRow): string[] =>
  row.kind === 'task'
    ? ['task', row.task.title, `+${credits(row.task.reward_credits)}`, '', row.task.claimed ? 'claimed' : row.task.requirement]
    : ['pack', `${credits(row.pack.credits)} credits`, credits(row.pack.credits), usd(row.pack.price_usd), 'Enter buys'];

export function CreditsScreen({ session, width, height }: ScreenProps) {
  const screen = useCreditsScreen(session, height - 5);
  session.registerKeys('credits', screen.handle);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Credits <Text dimColor>of the account the key in use belongs to · 1 credit = $0.01</Text>
      </Text>
      <Loadable resource={screen.resource} what="credits">
        {(data) => (
          <Box flexDirection="column">
            <Text wrap="truncate-end">
              Balance <Text bold color="green">{credits(data.balance.credits)}</Text> credits ({usd(data.balance.credits / 100)})
              {data.balance.held_credits > 0 ? ` · ${credits(data.balance.held_credits)} held by requests in flight` : ''}
            </Text>
            <Text dimColor wrap="truncate-end">
              {screen.nextClaim ? `Daily credits claimed; next claim from ${minute(screen.nextClaim)}.` : 'c claims the daily credits (once per UTC day).'} s syncs points.
            </Text>
            {screen.rows.length === 0 ? (
              <Text dimColor>This server offers no tasks and no packs.</Text>
            ) : (
              <Table columns={COLUMNS} rows={screen.rows.map(cells)} cursor={screen.cursor.index} height={height - 3} width={width} />
            )}
          </Box>
        )}
      </Loadable>
    </Box>
  );
}
