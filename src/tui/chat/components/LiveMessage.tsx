import { Box, Text } from 'ink';
import { renderUnprinted } from '../live-split.js';

/** The answer streaming now: the only part of the screen that redraws while it streams. */
export function LiveMessage({ text, printed, busy, width, continues }: { text: string; printed: string; busy: boolean; width: number; continues: boolean }) {
  if (!busy) return null;
  const shown = renderUnprinted(text, printed, width);
  return (
    <Box flexDirection="column" marginTop={continues ? 0 : 1}>
      {shown ? <Text>{shown}</Text> : <Text dimColor>{text ? '' : '…'}</Text>}
    </Box>
  );
}
