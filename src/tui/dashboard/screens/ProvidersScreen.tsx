import { Box, Text } from 'ink';
import { Loadable } from '../components/Loadable.js';
import { Table, type Column } from '../components/Table.js';
import { minute } from '../format.js';
import type { ProviderTarget } from '../api.js';
import type { ScreenProps } from '../session.js';
import { useProvidersScreen } from './providers.js';

const COLUMNS: Column[] = [
  { title: 'Target' },
  { title: 'Breaker', width: 9 },
];

const BREAKER: Record<ProviderTarget['breaker'], string> = { closed: 'closed', open: 'OPEN', half_open: 'half-open' };

const cells = (target: ProviderTarget): string[] => [target.target, BREAKER[target.breaker]];

/**
 * Each upstream target the server serves and its breaker, reloaded by the auto-refresh. No traffic figures:
 * they count every developer's requests, so the server gives them to its operator only (/metrics).
 */
export function ProvidersScreen({ session, width, height }: ScreenProps) {
  const screen = useProvidersScreen(session, height - 4);
  session.registerKeys('providers', screen.handle);
  const data = screen.resource.status === 'ready' ? screen.resource.data : null;
  const open = screen.targets.filter((target) => target.breaker !== 'closed').length;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        Providers{data ? ` (${screen.targets.length})` : ''}
        <Text dimColor>{open > 0 ? ` · ${open} breaker${open === 1 ? '' : 's'} not closed` : ''}</Text>
      </Text>
      <Loadable
        resource={screen.resource}
        what="providers"
        isEmpty={(status) => status.data.length === 0}
        empty="This server serves no upstream target."
      >
        {(status) => (
          <Box flexDirection="column">
            <Table columns={COLUMNS} rows={status.data.map(cells)} cursor={screen.cursor.index} height={height - 3} width={width} />
            <Text dimColor wrap="truncate-end">
              As of {minute(status.at)}. Traffic figures are the operator's (GET /metrics).
            </Text>
          </Box>
        )}
      </Loadable>
    </Box>
  );
}
