import { Box, Text } from 'ink';
import { dropLines } from '../live-split.js';
import { renderMarkdown } from '../markdown.js';

/** The answer streaming now: the only part of the screen that redraws while it streams. */
export function LiveMessage({ text, skip, busy, width, continues }: { text: string; skip: number; busy: boolean; width: number; continues: boolean }) {
  if (!busy) return null;
  const shown = dropLines(renderMarkdown(text, width), skip);
  return (
    <Box flexDirection="column" marginTop={continues ? 0 : 1}>
      {shown ? <Text>{shown}</Text> : <Text dimColor>{text ? '' : '…'}</Text>}
    </Box>
  );
}
