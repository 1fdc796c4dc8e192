import { Box, Text } from 'ink';
import { globalBindings, listBindings, type Binding } from '../keys.js';
import { SCREENS } from '../screens.js';

interface Entry {
  keys: string;
  description: string;
}

/** A titled list of keys, in `columns` columns so that it fits a 24-row terminal. */
function Section({ title, entries, width, columns = 1 }: { title: string; entries: readonly Entry[]; width: number; columns?: number }) {
  const perColumn = Math.ceil(entries.length / columns);
  const keyWidth = Math.max(...entries.map((entry) => entry.keys.length)) + 2;
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>{title}</Text>
      <Box>
        {Array.from({ length: columns }, (_, column) => (
          <Box key={column} flexDirection="column" width={Math.floor(width / columns)}>
            {entries.slice(column * perColumn, (column + 1) * perColumn).map((entry) => (
              <Text key={entry.keys} wrap="truncate-end">
                <Text color="cyan">{entry.keys.padEnd(keyWidth)}</Text>
                {entry.description}
              </Text>
            ))}
          </Box>
        ))}
      </Box>
    </Box>
  );
}

const screenIds = new Set<string>(SCREENS.map((screen) => screen.id));

/** Every key, from the same tables the keys are handled by. */
export function HelpView({ screenTitle, bindings, width }: { screenTitle: string; bindings: readonly Binding<string>[]; width: number }) {
  const everywhere: Entry[] = [
    ...globalBindings.filter((binding) => !screenIds.has(binding.action)),
    { keys: `1–${SCREENS.length}`, description: 'go to a screen' },
  ];
  const half = Math.floor(width / 2);
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        <Section title="Everywhere" entries={everywhere} width={half} />
        <Section title={screenTitle} entries={bindings} width={width - half} />
      </Box>
      <Box marginTop={1}>
        <Section title="Lists" entries={listBindings} width={width} columns={3} />
      </Box>
      <Text dimColor>Esc or ? closes this help.</Text>
    </Box>
  );
}
