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
  const screen = useCreditsScreen(session, height - 6);
  session.registerKeys('credits', screen.handle, screen.selected);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Credits <Text dimColor>of the account the key in use belongs to · 1 credit = $0.01</Text>
      </Text>
      <Loadable resource={screen.resource} what="credits">
        {(data) => (
          <Box flexDirection="column">
            <Text wrap="truncate-end">
              {data.balance.livemode ? 'Balance ' : 'Test balance '}
              <Text bold color="green">
                {credits(data.balance.credits)}
              </Text>{' '}
              credits {data.balance.livemode ? `(${usd(data.balance.credits / 100)})` : '(play money: a test key pays through the sandbox)'}
              {data.balance.held_credits > 0 ? ` · ${credits(data.balance.held_credits)} held by requests in flight` : ''}
            </Text>
            <Text dimColor wrap="truncate-end">
              {data.balance.livemode
                ? 'Daily credits and task rewards are paid from the operator’s promotions account; when it runs out, claims are refused.'
                : 'Claims are made with a live admin key; purchases here are play money.'}
            </Text>
            <Text dimColor wrap="truncate-end">
              {screen.nextClaim ? `Daily credits claimed; next claim from ${minute(screen.nextClaim)}.` : 'c claims the daily credits (once per UTC day).'} s syncs points.
            </Text>
            {screen.rows.length === 0 ? (
              <Text dimColor>This server offers no tasks and no packs.</Text>
            ) : (
              <Table columns={COLUMNS} rows={screen.rows.map(cells)} cursor={screen.cursor.index} height={height - 4} width={width} />
            )}
          </Box>
        )}
      </Loadable>
    </Box>
  );
}
