import { Box, Text } from 'ink';
import { lastRows, renderUnprinted } from '../live-split.js';

/** The answer streaming now: the only part of the screen that redraws while it streams. */
export function LiveMessage(props: { text: string; printed: string; continuesItem: boolean; busy: boolean; width: number; columns: number; maxRows: number; continues: boolean }) {
  const { text, printed, continuesItem, busy, width, continues } = props;
  if (!busy) return null;
  const shown = lastRows(renderUnprinted(text, printed, width, { continuesItem }), props.columns, props.maxRows);
  return (
    <Box flexDirection="column" marginTop={continues ? 0 : 1}>
      {shown ? <Text>{shown}</Text> : <Text dimColor>{text ? '' : '…'}</Text>}
    </Box>
  );
}
