import { Box, Text } from 'ink';
import type { SlashCommand } from '../slash-commands.js';

/** What the `/word` being typed could complete to (Tab takes the first). */
export function SlashHints({ commands }: { commands: SlashCommand[] }) {
  if (commands.length === 0) return null;
  return (
    <Box flexDirection="column">
      {commands.slice(0, 6).map((command) => (
        <Text key={command.name} dimColor>
          /{command.name}
          {command.args ? ` ${command.args}` : ''} — {command.description}
        </Text>
      ))}
    </Box>
  );
}
