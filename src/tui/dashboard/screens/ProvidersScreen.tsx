import { Box, Text } from 'ink';
import { Loadable } from '../components/Loadable.js';
import { Table, type Column } from '../components/Table.js';
import { count, minute } from '../format.js';
import type { ProviderTarget } from '../api.js';
import type { ScreenProps } from '../session.js';
import { PROVIDERS_REFRESH_MS, useProvidersScreen } from './providers.js';

const COLUMNS: Column[] = [
  { title: 'Target' },
  { title: 'Breaker', width: 9 },
  { title: 'Requests', width: 8, align: 'right' },
  { title: 'Errors', width: 7, align: 'right' },
  { title: 'Err rate', width: 8, align: 'right' },
  { title: 'p50', width: 8, align: 'right' },
  { title: 'Last', width: 14 },
];

const BREAKER: Record<ProviderTarget['breaker'], string> = { closed: 'closed', open: 'OPEN', half_open: 'half-open' };

/** 0.25 → "25.0%"; none yet → "–". */
const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);
/** Milliseconds as people read them: "180 ms", "2.4 s". */
const latency = (ms: number | null) => (ms === null ? '–' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

const cells = (target: ProviderTarget): string[] => [
  target.target,
  BREAKER[target.breaker],
  count(target.requests),
  count(target.errors),
  percent(target.error_rate),
  latency(target.p50_latency_ms),
  target.last_outcome ?? '',
];

/** Each upstream target's state as the server instance answering sees it; refreshes itself. */
export function ProvidersScreen({ session, width, height }: ScreenProps) {
  const screen = useProvidersScreen(session, height - 4);
  session.registerKeys('providers', screen.handle);
  const data = screen.resource.status === 'ready' ? screen.resource.data : null;
  const open = screen.targets.filter((target) => target.breaker !== 'closed').length;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Providers{data ? ` (${screen.targets.length})` : ''}
        <Text dimColor>
          {' '}
          · {open > 0 ? `${open} breaker${open === 1 ? '' : 's'} not closed · ` : ''}rates and p50 over the last {data?.window ?? 200} attempts · every{' '}
          {PROVIDERS_REFRESH_MS / 1000} s
        </Text>
      </Text>
      <Loadable
        resource={screen.resource}
        what="providers"
        isEmpty={(status) => status.data.length === 0}
        empty="No upstream target tried yet on this server instance: each shows here once a request reaches it or its breaker moves."
      >
        {(status) => (
          <Box flexDirection="column">
            <Table columns={COLUMNS} rows={status.data.map(cells)} cursor={screen.cursor.index} height={height - 3} width={width} />
            <Text dimColor wrap="truncate-end">
              As of {minute(status.at)}, on the instance that answered (behind a load balancer, each has its own view).
            </Text>
          </Box>
        )}
      </Loadable>
    </Box>
  );
}
