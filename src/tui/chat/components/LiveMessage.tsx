import { Box, Text } from 'ink';
import { renderMarkdown } from '../markdown.js';

/** The answer streaming now: the only part of the screen that redraws while it streams. */
export function LiveMessage({ text, busy, width }: { text: string; busy: boolean; width: number }) {
  if (!busy) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      {text ? <Text>{renderMarkdown(text, width)}</Text> : <Text dimColor>…</Text>}
    </Box>
  );
}
