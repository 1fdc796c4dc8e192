import { Box, Text } from 'ink';
import type { SlashCommand } from '../slash-commands.js';

/**
 * Under the prompt: what the `/word` being typed could complete to (Tab takes the first), what a
 * path could complete to, and the files waiting to go with the next question.
 */
export function SlashHints({ commands, paths, attachments }: { commands: SlashCommand[]; paths: string[]; attachments: string[] }) {
  const lines = [
    ...commands.slice(0, 6).map((command) => `/${command.name}${command.args ? ` ${command.args}` : ''} — ${command.description}`),
    ...(paths.length ? [paths.slice(0, 12).join('  ') + (paths.length > 12 ? `  … ${paths.length - 12} more` : '')] : []),
    ...(attachments.length ? [`attached for the next question: ${attachments.join(', ')}`] : []),
  ];
  if (lines.length === 0) return null;
  return (
    <Box flexDirection="column">
      {lines.map((line) => (
        <Text key={line} dimColor wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}
