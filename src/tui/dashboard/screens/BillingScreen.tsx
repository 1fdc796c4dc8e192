import { Box, Text } from 'ink';
import { PageTable } from '../components/PageTable.js';
import type { Column } from '../components/Table.js';
import { credits, day, usd } from '../format.js';
import type { BillingRecord } from '../api.js';
import type { ScreenProps } from '../session.js';
import { useBillingScreen } from './billing.js';

const COLUMNS: Column[] = [
  { title: 'Date', width: 10 },
  { title: 'Kind', width: 12 },
  { title: 'Description' },
  { title: 'Amount', width: 9, align: 'right' },
  { title: 'Credits', width: 8, align: 'right' },
  { title: 'Status', width: 8 },
];

const KINDS: Record<BillingRecord['kind'], string> = { credit_pack: 'credit pack', app_funding: 'app funding', subscription: 'subscription' };

/** What the account paid for: packs, app funding and subscription charges. */
export function BillingScreen({ session, width, height }: ScreenProps) {
  const screen = useBillingScreen(session, height - 3);
  session.registerKeys('billing', screen.handle, screen.selected);
  const paid = screen.list.filter((record) => record.status === 'paid').reduce((sum, record) => sum + record.amount_usd, 0);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Billing{screen.resource.status === 'ready' ? ` (${screen.resource.data.total})` : ''}
        <Text dimColor> · {usd(paid)} paid{session.state.filters.billing ? ' in the rows shown' : ''} · newest first</Text>
      </Text>
      <PageTable
        resource={screen.resource}
        what="charges"
        empty="Nothing billed yet: packs (Credits), app funding (Apps, f) and subscriptions show here."
        columns={COLUMNS}
        cells={(record) => [
          day(record.created_at),
          KINDS[record.kind],
          record.description,
          usd(record.amount_usd),
          record.credits === null ? '' : credits(record.credits),
          record.status,
        ]}
        cursor={screen.cursor.index}
        height={height - 1}
        width={width}
        filter={session.state.filters.billing}
        rows={screen.list}
      />
    </Box>
  );
}
